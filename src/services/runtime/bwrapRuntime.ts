import * as fsp from 'node:fs/promises';
import { ShellProcess, type ShellProcessOptions } from '../../base/shell/shellProcess';
import { execLocal } from './localRuntime';
import type { Runtime, RuntimeExecOptions, RuntimeExecResult, RuntimeProcess } from './runtime';
import { nodeBuiltins } from '../../base/nodeBuiltins';

export interface BwrapRuntimeOptions {
  /** Folders commands may write (absolute, existing): the workspace roots and any more. */
  readonly writable: readonly string[];
  /** A private temporary folder (absolute, existing), writable and the commands' TMPDIR. */
  readonly tempDir: string;
  /** Let commands reach the network (default false: a network namespace of their own, with nothing in it). */
  readonly network?: boolean;
  /** The bubblewrap binary (default `bwrap`, found on PATH). */
  readonly bwrapPath?: string;
}

/** Why bubblewrap cannot sandbox commands here: `not-found` (no binary), `no-namespaces` (it ran, but failed). */
export type SandboxUnavailableReason = 'not-found' | 'no-namespaces';

/** bubblewrap is missing or cannot create its namespaces; nothing was run unsandboxed. */
export class SandboxUnavailableError extends Error {
  override readonly name = 'SandboxUnavailableError';
  constructor(
    readonly reason: SandboxUnavailableReason,
    readonly bwrapPath: string,
    message: string,
  ) {
    super(message);
  }
}

/** The name of the sandbox's first process (pid 1 of its PID namespace), as ps shows it. */
const SANDBOX_INIT_NAME = 'toolhost-sandbox';
const PROBE_TIMEOUT_MS = 10_000;
const TRY_WITHOUT = 'or run without the sandbox (no --sandbox flag; config "sandbox": "none")';

/**
 * The bubblewrap arguments before the command: the root read-only, /dev and /proc minimal, the
 * writable folders bound over it, and new PID, IPC, UTS (and network) namespaces.
 *
 * `--as-pid-1` makes the sandbox's first process a small shell of ours rather than bwrap's own
 * init, which waits for every process: when the command's shell exits, that first process exits,
 * and the kernel kills whatever the command left in the namespace. `--die-with-parent` ends the
 * sandbox when bwrap outside it is killed (a stop signals the process group, bwrap included).
 */
function bwrapArgs(options: BwrapRuntimeOptions): string[] {
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
  for (const dir of [...options.writable, options.tempDir]) args.push('--bind', dir, dir);
  args.push('--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try');
  if (options.network !== true) args.push('--unshare-net');
  args.push('--die-with-parent', '--as-pid-1', '--setenv', 'TMPDIR', options.tempDir, '--');
  // "$@" runs the command as pid 2, so `kill $$` in it works as outside (pid 1 ignores signals it has no handler for).
  args.push('/bin/sh', '-c', '"$@"; exit $?', SANDBOX_INIT_NAME);
  return args;
}

/** Probes once per binary (and PATH, for a bare name) and network setting in this process: `bwrap … true` with the flags commands get. */
const probes = new Map<string, SandboxUnavailableError | undefined>();

function probe(bwrapPath: string, network: boolean): void {
  const key = `${bwrapPath}\0${network}\0${bwrapPath.includes('/') ? '' : (process.env.PATH ?? '')}`;
  if (!probes.has(key)) probes.set(key, runProbe(bwrapPath, network));
  const problem = probes.get(key);
  if (problem) throw problem;
}

function runProbe(bwrapPath: string, network: boolean): SandboxUnavailableError | undefined {
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try'];
  if (!network) args.push('--unshare-net');
  args.push('--die-with-parent', '--as-pid-1', '--', 'true');
  // With the PATH commands will be started with (ShellProcess passes process.env on).
  const result = nodeBuiltins.childProcess().spawnSync(bwrapPath, args, { encoding: 'utf8', env: process.env, timeout: PROBE_TIMEOUT_MS, stdio: ['ignore', 'ignore', 'pipe'] });
  const code = (result.error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT' || code === 'EACCES') {
    return new SandboxUnavailableError(
      'not-found',
      bwrapPath,
      `The sandbox needs bubblewrap, but "${bwrapPath}" ${code === 'ENOENT' ? 'was not found' : 'cannot be run'}${bwrapPath.includes('/') ? '' : ' on PATH'}. ` +
        `Install it (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap), or give its path in config sandbox.bwrapPath, ${TRY_WITHOUT}.`,
    );
  }
  if (result.error || result.status !== 0) {
    const said = (result.stderr ?? '').trim().split('\n')[0] || (result.error ? result.error.message : `exit code ${result.status ?? result.signal}`);
    return new SandboxUnavailableError(
      'no-namespaces',
      bwrapPath,
      `The sandbox cannot start: "${bwrapPath}" could not create its namespaces (${said}). ` +
        'Enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 23.10+ also kernel.apparmor_restrict_unprivileged_userns=0), ' +
        `run in a container that allows them, ${TRY_WITHOUT}.`,
    );
  }
  return undefined;
}

/**
 * The `bwrap-local` runtime: this machine's file system, with every process it starts run under
 * bubblewrap (the root read-only, the writable folders and a private TMPDIR writable, no network
 * unless allowed, a PID namespace that ends with the command). Probes bubblewrap first and
 * throws SandboxUnavailableError when it cannot sandbox, so nothing runs unsandboxed.
 */
export function createBwrapRuntime(options: BwrapRuntimeOptions): Runtime {
  const bwrapPath = options.bwrapPath ?? 'bwrap';
  probe(bwrapPath, options.network === true);
  const prefix = bwrapArgs(options);
  const sandboxed: RuntimeProcess = {
    exec: (file: string, args: readonly string[], execOptions: RuntimeExecOptions): Promise<RuntimeExecResult> => execLocal(bwrapPath, [...prefix, file, ...args], execOptions),
    startShell: (shellOptions: ShellProcessOptions) =>
      new ShellProcess({ ...shellOptions, wrapArgv: (argv) => [bwrapPath, ...prefix, ...(shellOptions.wrapArgv?.(argv) ?? argv)] }),
  };
  return { name: 'bwrap-local', capabilities: ['fs', 'process'], fs: fsp, process: sandboxed };
}
