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

export interface FsHooks {
  /** Runs right before the runtime's fs opens `path` (`open` or `readFile`, by a tool or helper through the runtime). */
  readonly beforeOpen?: (path: string) => void;
  /**
   * Runs right before a file opened through the runtime is flushed to disk (`handle.sync()`): for
   * an atomic write, after all of its content is in the temporary file and before the rename.
   */
  readonly beforeSync?: (path: string) => void;
  /** Runs right before the runtime's fs lists the folder `path` (a search walking a tree). */
  readonly beforeReaddir?: (path: string) => void;
}

/** The local runtime with hooks inside its fs calls: the swaps run where no tool can check in between. */
export function hookedRuntime(hooks: FsHooks): Runtime {
  const base = createLocalRuntime();
  const open = (async (path: Parameters<RuntimeFs['open']>[0], ...rest: unknown[]) => {
    hooks.beforeOpen?.(String(path));
    const handle = await (fsp.open as (...args: unknown[]) => ReturnType<RuntimeFs['open']>)(path, ...rest);
    if (!hooks.beforeSync) return handle;
    // The other methods run on the real handle through the prototype.
    return Object.assign(Object.create(handle) as typeof handle, {
      sync: async () => {
        hooks.beforeSync!(String(path));
        return handle.sync();
      },
      close: () => handle.close(),
    });
  }) as RuntimeFs['open'];
  const readFile = ((path: Parameters<RuntimeFs['readFile']>[0], ...rest: unknown[]) => {
    hooks.beforeOpen?.(String(path));
    return (fsp.readFile as (...args: unknown[]) => ReturnType<RuntimeFs['readFile']>)(path, ...rest);
  }) as RuntimeFs['readFile'];
  const readdir = ((path: Parameters<RuntimeFs['readdir']>[0], ...rest: unknown[]) => {
    hooks.beforeReaddir?.(String(path));
    return (fsp.readdir as (...args: unknown[]) => ReturnType<RuntimeFs['readdir']>)(path, ...rest);
  }) as RuntimeFs['readdir'];
  return { ...base, name: 'hooked', fs: { ...base.fs!, open, readFile, readdir } };
}

/** The local runtime, where `swap` runs right before the first open of `path` (after every check the tool made before opening). */
export function swapOnFirstOpen(path: string, swap: () => void): Runtime {
  let swapped = false;
  return hookedRuntime({
    beforeOpen: (opened) => {
      if (swapped || opened !== path) return;
      swapped = true;
      swap();
    },
  });
}
