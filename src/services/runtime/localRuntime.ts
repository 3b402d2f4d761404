import * as fsp from 'node:fs/promises';
import { ShellProcess, type ShellProcessOptions } from '../../base/shell/shellProcess';
import type { RuntimeCapability } from '../../di/toolContribution';
import type { Runtime, RuntimeExecOptions, RuntimeExecResult, RuntimeProcess } from './runtime';
import { nodeBuiltins } from '../../base/nodeBuiltins';

const DEFAULT_EXEC_TIMEOUT_MS = 60_000;
const DEFAULT_EXEC_MAX_BYTES = 16 * 1024 * 1024;

/** Runs a program on this machine with execFile (no shell); a non-zero exit is a result, not a throw. */
export function execLocal(file: string, args: readonly string[], options: RuntimeExecOptions): Promise<RuntimeExecResult> {
  return new Promise((resolve, reject) => {
    nodeBuiltins.childProcess().execFile(
      file,
      [...args],
      { cwd: options.cwd, encoding: 'utf8', timeout: options.timeoutMs ?? DEFAULT_EXEC_TIMEOUT_MS, maxBuffer: options.maxBytes ?? DEFAULT_EXEC_MAX_BYTES, ...(options.signal ? { signal: options.signal } : {}) },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number' && !error.killed && error.signal == null) {
          reject(error);
          return;
        }
        resolve({ exitCode: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
      },
    );
  });
}

const localProcess: RuntimeProcess = {
  exec: execLocal,
  startShell: (options: ShellProcessOptions) => new ShellProcess(options),
};

/** The local machine: node:fs and child processes. `capabilities` can narrow it (tests, sandboxes). */
export function createLocalRuntime(capabilities: readonly RuntimeCapability[] = ['fs', 'process']): Runtime {
  return {
    name: 'local',
    capabilities: [...capabilities],
    fs: capabilities.includes('fs') ? fsp : undefined,
    process: capabilities.includes('process') ? localProcess : undefined,
  };
}
