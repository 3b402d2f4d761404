import * as fs from 'node:fs';
import * as os from 'node:os';
import * as nodePath from 'node:path';

/** A fresh real directory under the OS temp dir (canonical path); removed by `cleanup`. */
export function makeTempDir(prefix = 'toolhost-test-'): string {
  return fs.realpathSync(fs.mkdtempSync(nodePath.join(os.tmpdir(), prefix)));
}

export function removeDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}

/** Writes files (creating folders) from a map of relative path → content. */
export function writeFiles(root: string, files: Record<string, string | Buffer>): void {
  for (const [rel, content] of Object.entries(files)) {
    const file = nodePath.join(root, rel);
    fs.mkdirSync(nodePath.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
}

/** Creates a temp dir before each test and removes it after; read `.path` inside a test. */
export function useTempDir(prefix?: string): { readonly path: string } {
  const holder = { path: '' };
  beforeEach(() => {
    holder.path = makeTempDir(prefix);
  });
  afterEach(() => {
    removeDir(holder.path);
  });
  return holder;
}
