import type * as fsp from 'node:fs/promises';

/** The file operations tools use, shaped like node:fs/promises so the local runtime is a pass-through. */
export type RuntimeFs = Pick<
  typeof fsp,
  'open' | 'stat' | 'lstat' | 'readFile' | 'writeFile' | 'appendFile' | 'rename' | 'mkdir' | 'realpath' | 'readdir' | 'unlink' | 'rm' | 'chmod' | 'copyFile'
>;
