import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { benchDir } from './util';

/**
 * The search corpus of ../shared/reference/perf-baselines.md: a real dependency tree of about 100k files and
 * 450 MB (`bench/corpus/package.json` with its lockfile, installed with `npm ci --ignore-scripts`), with a
 * `.gitignore` of `*.map` and `*.min.js` and `git init`, so ripgrep and our engines treat it as a repository.
 * Built once under the OS temp folder (about a minute from the npm registry) and reused while the lockfile is
 * unchanged. Not a copy of toolhost's own node_modules: its size and shape must not move with our dependencies.
 */
export interface SearchCorpus {
  /** The repository root searched by the benchmarks. */
  readonly root: string;
  /** A folder of 50 `.ts` files taken from the corpus, for the small-scope cases. */
  readonly small: string;
  /** Files below root (regular files, the `.git` folder left out). */
  readonly files: number;
}

export const SMALL_FILES = 50;

export function searchCorpus(): SearchCorpus {
  const source = nodePath.join(__dirname, '..', '..', 'bench', 'corpus');
  const lock = fs.readFileSync(nodePath.join(source, 'package-lock.json'));
  const key = createHash('sha256').update(lock).digest('hex').slice(0, 12);
  const root = nodePath.join(benchDir(), `corpus-${key}`);
  const small = nodePath.join(benchDir(), `corpus-${key}-small`);
  const marker = nodePath.join(root, '.complete');
  if (fs.existsSync(marker)) return { root, small, files: Number(fs.readFileSync(marker, 'utf8')) };

  console.log(`(building the search corpus in ${root}: npm ci, about a minute)`);
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(small, { recursive: true, force: true });
  fs.mkdirSync(root, { recursive: true });
  for (const name of ['package.json', 'package-lock.json']) fs.copyFileSync(nodePath.join(source, name), nodePath.join(root, name));
  execFileSync('npm', ['ci', '--ignore-scripts', '--legacy-peer-deps', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: root, stdio: 'inherit' });
  fs.writeFileSync(nodePath.join(root, '.gitignore'), '*.map\n*.min.js\n');
  execFileSync('git', ['init', '-q', '.'], { cwd: root });

  const all: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((x, y) => (x.name < y.name ? -1 : 1))) {
      if (entry.name === '.git' && dir === root) continue;
      const full = nodePath.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) all.push(full);
    }
  };
  walk(root);
  fs.mkdirSync(small, { recursive: true });
  all
    .filter((f) => f.endsWith('.ts'))
    .slice(0, SMALL_FILES)
    .forEach((file, i) => fs.copyFileSync(file, nodePath.join(small, `f${String(i).padStart(2, '0')}.ts`)));
  fs.writeFileSync(marker, String(all.length));
  return { root, small, files: all.length };
}
