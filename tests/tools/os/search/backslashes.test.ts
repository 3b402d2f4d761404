import * as nodePath from 'node:path';
import { runIsolated } from '../../../helpers/isolated';
import { useTempDir, writeFiles } from '../../../helpers/tempDir';

/**
 * A pattern ending in a run of four or more backslashes made picomatch 4.0.7 loop forever,
 * synchronously. Each entry point where a model or a file supplies a pattern (Glob's `pattern`,
 * Grep's `glob`, a `.gitignore` line, a nested `.gitignore`) runs in a child process that is
 * killed if it hangs. The meaning follows git: `\\` is one literal backslash, a trailing
 * backslash that escapes nothing is invalid (refused for a tool argument, dropped as an ignore
 * rule).
 */
const dir = useTempDir();

const RUNS = [4, 5, 8, 1000] as const;
const bs = (n: number) => '\\'.repeat(n);
/** `x\\` and `x\\\\` on disk: what 4 and 8 trailing backslashes in a pattern name. */
const X2 = `x${bs(2)}`;
const X4 = `x${bs(4)}`;

interface ToolCall {
  readonly name: string;
  readonly args: Record<string, unknown>;
}

/** Runs each folder's calls through a fresh App (builtin Grep engine) in a child process; the outputs per folder. */
async function runCalls(runs: ReadonlyArray<{ dir: string; calls: readonly ToolCall[] }>): Promise<string[][]> {
  return runIsolated<string[][]>(
    `
    const { createApp, builtinFeatures } = load('index.js');
    const results = [];
    for (const run of input.runs) {
      const app = createApp({ features: builtinFeatures(), config: { grep: { engine: 'builtin' } } });
      const agent = app.createAgent({ cwd: run.dir });
      const outputs = [];
      for (const call of run.calls) {
        const [result] = await agent.executor.execute([{ id: 'call', name: call.name, arguments: call.args }]);
        outputs.push(String(result.output));
      }
      await app.dispose();
      results.push(outputs);
    }
    return results;
    `,
    { runs },
  );
}

const sortedLines = (output: string) => output.split('\n').sort();

function tree(root: string, prefix = ''): void {
  writeFiles(root, { [`${prefix}keep.txt`]: 'needle\n', [`${prefix}${X2}`]: 'needle\n', [`${prefix}${X4}`]: 'needle\n' });
}

const danglingGlob = (raw: string, what: 'glob' | 'pattern') =>
  `The ${what} "${raw}" ends with a backslash that escapes nothing. ` +
  'A backslash makes the character after it literal: write two backslashes for one literal backslash, or leave it out.';

test('Glob: a pattern ending in 4, 5, 8 or 1000 backslashes completes, with git meaning', async () => {
  tree(dir.path);
  const [outputs] = await runCalls([{ dir: dir.path, calls: RUNS.map((n) => ({ name: 'Glob', args: { pattern: `x${bs(n)}` } })) }]);
  expect(outputs).toEqual([
    X2,
    danglingGlob(`x${bs(5)}`, 'pattern'),
    X4,
    `No files match "x${bs(1000)}" in the working directory. Files ignored by .gitignore, .ignore or .rgignore were not searched; set include_ignored: true to include them.`,
  ]);
}, 40_000);

test('Grep: a glob ending in 4, 5, 8 or 1000 backslashes completes, with git meaning', async () => {
  tree(dir.path);
  const [outputs] = await runCalls([{ dir: dir.path, calls: RUNS.map((n) => ({ name: 'Grep', args: { pattern: 'needle', glob: `x${bs(n)}` } })) }]);
  expect(outputs).toEqual([
    X2,
    danglingGlob(`x${bs(5)}`, 'glob'),
    X4,
    `No matches for "needle" in the working directory (glob "x${bs(1000)}"). Files ignored by .gitignore, .ignore or .rgignore were not searched; set include_ignored: true to search them.`,
  ]);
}, 40_000);

describe.each([
  ['a .gitignore line', ''],
  ['a nested .gitignore line', 'sub/'],
])('%s ending in 4, 5, 8 or 1000 backslashes', (_, prefix) => {
  test('completes; an escaped pair ignores a literal backslash, a dangling one drops the rule', async () => {
    const runs = RUNS.map((n) => {
      const root = nodePath.join(dir.path, `run${n}`);
      tree(root, prefix);
      writeFiles(root, { [`${prefix}.gitignore`]: `x${bs(n)}\n` });
      return {
        dir: root,
        calls: [
          { name: 'Glob', args: { pattern: '**/*' } },
          { name: 'Grep', args: { pattern: 'needle' } },
        ],
      };
    });
    const results = await runCalls(runs);
    const all = [`${prefix}.gitignore`, `${prefix}keep.txt`, `${prefix}${X2}`, `${prefix}${X4}`].sort();
    const without = (name: string) => all.filter((f) => f !== `${prefix}${name}`);
    const expected = [without(X2), all, without(X4), all];
    results.forEach(([globbed, grepped], i) => {
      expect(sortedLines(globbed!)).toEqual(expected[i]);
      expect(sortedLines(grepped!)).toEqual(expected[i]!.filter((f) => !f.endsWith('.gitignore')));
    });
  }, 40_000);
});
