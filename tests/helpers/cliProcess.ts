import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { testHome } from './testHome';

export const CLI = nodePath.resolve(__dirname, '../../dist/cli/main.js');

/** The CLI's environment: this process's, with an empty test home (unless `env` names a HOME), then `env`. */
export function cliEnv(env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ...process.env, HOME: testHome(), ...env };
}

/** cliEnv without unset entries, as the MCP SDK's StdioClientTransport takes an environment. */
export function cliStdioEnv(env: NodeJS.ProcessEnv = {}): Record<string, string> {
  return Object.fromEntries(Object.entries(cliEnv(env)).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the built `toolhost` CLI as a real process. Its stdin is `input` through a pipe, or the
 * file `stdinFrom` itself (e.g. /dev/zero).
 */
export function runCliProcess(args: readonly string[], options: { cwd: string; input?: string; stdinFrom?: string; env?: NodeJS.ProcessEnv }): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const stdinFd = options.stdinFrom !== undefined ? fs.openSync(options.stdinFrom, 'r') : undefined;
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: options.cwd,
      env: cliEnv(options.env),
      stdio: [stdinFd ?? 'pipe', 'pipe', 'pipe'],
    });
    if (stdinFd !== undefined) fs.closeSync(stdinFd);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin?.end(options.input ?? '');
  });
}

export interface StartedCli {
  readonly child: ChildProcessWithoutNullStreams;
  readonly stdout: () => string;
  readonly stderr: () => string;
  /** The exit code, or the signal that ended it. */
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts the built `toolhost` CLI as a real process and collects its output; the test drives it. */
export function startCliProcess(args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): StartedCli {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: options.cwd, env: cliEnv(options.env), stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  return { child, stdout: () => stdout, stderr: () => stderr, exit };
}
