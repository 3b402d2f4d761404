import { spawn } from 'node:child_process';
import * as nodePath from 'node:path';

const ROOT = nodePath.resolve(__dirname, '../..');
const DIST = nodePath.join(ROOT, 'dist');
const RESULT_MARK = '\u0000toolhost-isolated-result\u0000';

export interface IsolatedOptions {
  /**
   * The process is killed (SIGKILL) after this long. Generous: it only turns a hang into a
   * failure and asserts nothing about speed. Default 20 s.
   */
  readonly killAfterMs?: number;
}

/**
 * Runs `body` in a fresh Node process against the built package (dist/, which
 * tests/globalSetup.cjs builds), so that code which never returns (a synchronous loop that no
 * timer or abort signal can stop) fails its test instead of hanging the suite.
 *
 * `body` is the text of an async CommonJS function body; it sees `load(path)` (requires a module
 * of dist/, e.g. `load('index.js')`) and `input` (the JSON value given here), and what it returns
 * (JSON) is what this resolves to. A kill, a non-zero exit or a throw rejects with what happened.
 */
export function runIsolated<T>(body: string, input: unknown, options: IsolatedOptions = {}): Promise<T> {
  const killAfterMs = options.killAfterMs ?? 20_000;
  const script = [
    "require('reflect-metadata');",
    `const load = (path) => require(require('node:path').join(${JSON.stringify(DIST)}, path));`,
    'let text = "";',
    "process.stdin.setEncoding('utf8').on('data', (d) => (text += d)).on('end', () => {",
    '  const input = JSON.parse(text);',
    `  (async () => {\n${body}\n  })(input).then(`,
    `    (value) => process.stdout.write(${JSON.stringify(RESULT_MARK)} + JSON.stringify(value ?? null), () => process.exit(0)),`,
    '    (error) => process.stderr.write(String((error && error.stack) || error), () => process.exit(1)),',
    '  );',
    '});',
  ].join('\n');
  return new Promise<T>((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script], { cwd: ROOT, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, killAfterMs);
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (killed) return reject(new Error(`The isolated script did not finish within ${killAfterMs} ms and was killed: it hangs.`));
      const at = stdout.indexOf(RESULT_MARK);
      if (code !== 0 || at < 0) return reject(new Error(`The isolated script failed (exit ${code ?? signal}): ${stderr || stdout}`));
      resolve(JSON.parse(stdout.slice(at + RESULT_MARK.length)) as T);
    });
    child.stdin.end(JSON.stringify(input ?? null));
  });
}
