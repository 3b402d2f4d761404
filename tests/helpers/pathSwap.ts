import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import type { Agent } from '../../src/scopes/agentScope';
import { createLocalRuntime } from '../../src/services/runtime/localRuntime';
import type { Runtime, RuntimeFs } from '../../src/services/runtime/runtime';
import type { ToolResult } from '../../src/tool/contract';

/**
 * Forcing the window between resolving a tool call (its path checked and canonicalised) and
 * using the path: a swap done after resolveExecution, or from inside the fs call that opens it.
 */

/** Resolves one call, runs `between`, then executes it: `between` lands after every check of resolveExecution. */
export async function executeAfter(agent: Agent, name: string, input: unknown, between: () => void | Promise<void>): Promise<ToolResult> {
  const registration = agent.registry.get(name);
  if (!registration) throw new Error(`Tool ${name} is not active`);
  const execution = await registration.tool.resolveExecution(input as never);
  if (execution.isError) throw new Error(`${name} refused to resolve: ${String(execution.output)}`);
  await between();
  return execution.execute({ toolCallId: 'call_swap', signal: new AbortController().signal, onUpdate: () => undefined, metadata: {} });
}

/** Replaces a file or folder with a symbolic link to `target`. */
export function replaceWithSymlink(path: string, target: string): void {
  fs.rmSync(path, { recursive: true, force: true });
  fs.symlinkSync(target, path);
}

/** Replaces a file with a FIFO (named pipe) that nobody writes to: an ordinary open of it blocks. */
export function replaceWithFifo(path: string): void {
  fs.rmSync(path, { force: true });
  execFileSync('mkfifo', [path]);
}

/** Unblocks a reader stuck opening a FIFO (a no-op when nobody is), so a failing test ends instead of hanging. */
export function releaseFifo(path: string): void {
  try {
    const fd = fs.openSync(path, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
    fs.closeSync(fd);
  } catch {
    // No reader waits (ENXIO), or the FIFO is gone.
  }
}

/**
 * The local runtime, where `swap` runs right before the first open of `path` (by the tool,
 * through the runtime's fs): the swap lands after every stat or check the tool made before opening.
 */
export function swapOnFirstOpen(path: string, swap: () => void): Runtime {
  const base = createLocalRuntime();
  let swapped = false;
  const open = ((target: Parameters<RuntimeFs['open']>[0], ...rest: unknown[]) => {
    if (!swapped && target === path) {
      swapped = true;
      swap();
    }
    return (fsp.open as (...args: unknown[]) => ReturnType<RuntimeFs['open']>)(target, ...rest);
  }) as RuntimeFs['open'];
  return { ...base, name: 'swap-on-open', fs: { ...base.fs!, open } };
}
