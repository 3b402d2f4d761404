import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { writeFiles } from './tempDir';

/** A real rg behind a script that keeps the command line of its last start. */
export function argLoggingRg(dir: string, rg: string): { readonly path: string; lastArgs(): string[] } {
  const log = nodePath.join(dir, 'rg-args.log');
  const path = nodePath.join(dir, 'rg-wrapper.sh');
  fs.writeFileSync(path, `#!/bin/sh\necho "$*" > '${log}'\nexec '${rg}' "$@"\n`, { mode: 0o755 });
  return { path, lastArgs: () => fs.readFileSync(log, 'utf8').trim().split(' ') };
}

/** A search folder, the files a search there lists, and whether rg may skip the folders above it. */
export type AncestorIgnoreCase = readonly [dir: string, files: readonly string[], skipsParents: boolean];

/**
 * Writes search folders below `root` whose ignore files above them apply or not (each folder holds
 * a.ts, skip.ts and deep/skip.ts with `content`), and returns what a search of `*.ts` in each lists.
 */
export function writeAncestorIgnoreLayouts(root: string, content: string): AncestorIgnoreCase[] {
  const tree: Record<string, string> = {
    // Not a repository: the .ignore and the .gitignore above the search folder apply.
    'plain/.ignore': 'skip.ts\n',
    'plaingit/.gitignore': '/sub/deep/\n',
    // A .gitignore above a repository root does not apply inside it, one inside the repository does.
    'outer/.gitignore': 'skip.ts\n',
    'outer/repo/.gitignore': '/sub/skip.ts\n',
    'outer/repo/.git/HEAD': '',
    // A .rgignore above applies in a repository too.
    'rgi/.rgignore': 'deep/\n',
    'rgi/repo/.git/HEAD': '',
  };
  const cases: AncestorIgnoreCase[] = [
    ['plain/sub', ['a.ts'], false],
    ['plaingit/sub', ['a.ts', 'skip.ts'], false],
    ['outer/repo', ['a.ts', 'deep/skip.ts', 'skip.ts', 'sub/a.ts', 'sub/deep/skip.ts'], true],
    ['outer/repo/sub', ['a.ts', 'deep/skip.ts'], false],
    ['rgi/repo', ['a.ts', 'skip.ts'], false],
  ];
  for (const [dir] of cases) for (const file of ['a.ts', 'skip.ts', 'deep/skip.ts']) tree[`${dir}/${file}`] = content;
  writeFiles(root, tree);
  return cases;
}
