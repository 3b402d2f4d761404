import * as fsp from 'node:fs/promises';

const RUNTIME_FS_OPERATIONS = ['open', 'stat', 'lstat', 'readFile', 'writeFile', 'appendFile', 'rename', 'mkdir', 'realpath', 'readdir', 'unlink', 'rm', 'chmod', 'copyFile'] as const;

/** The file operations tools use, shaped like node:fs/promises so the local runtime is a pass-through. */
export type RuntimeFs = Pick<typeof fsp, (typeof RUNTIME_FS_OPERATIONS)[number]>;

/**
 * Whether `fs` is the local disk: every operation is node:fs/promises's own, so a synchronous
 * node:fs call may stand in for a small one (cheaper than a thread-pool round trip). Functions
 * are compared, not the object: a namespace import may be a copy of the module object.
 */
export function isLocalDisk(fs: RuntimeFs): boolean {
  return RUNTIME_FS_OPERATIONS.every((operation) => fs[operation] === fsp[operation]);
}
