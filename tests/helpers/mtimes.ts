import * as fs from 'node:fs';
import * as nodePath from 'node:path';

/** Gives files distinct modification times, newest first, so tests of newest-first lists are exact. */
export function ageInOrder(root: string, newestFirst: readonly string[]): void {
  const now = Date.now() / 1000;
  newestFirst.forEach((rel, i) => fs.utimesSync(nodePath.join(root, rel), now - 100 * (i + 1), now - 100 * (i + 1)));
}
