import * as fs from 'node:fs';
import * as nodePath from 'node:path';

let cached: string | undefined;

/**
 * toolhost's version, from its package.json. Found by walking up from this file, so it does not
 * depend on where the file sits (src/ under ts-jest, dist/, the benchmark build); "0.0.0" if none.
 */
export function packageVersion(): string {
  if (cached !== undefined) return cached;
  cached = '0.0.0';
  let dir = __dirname;
  for (let depth = 0; depth < 8; depth++) {
    try {
      const pkg = JSON.parse(fs.readFileSync(nodePath.join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'toolhost' && typeof pkg.version === 'string') {
        cached = pkg.version;
        break;
      }
    } catch {
      // No package.json here (or not JSON): keep looking upward.
    }
    const parent = nodePath.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return cached;
}
