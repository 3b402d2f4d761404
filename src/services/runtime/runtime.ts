import type { Event } from '../../base/event';
import { createServiceId } from '../../di/serviceId';
import type { RuntimeCapability } from '../../di/toolContribution';

import type { RuntimeFs } from '../../base/fs/runtimeFs';
import type { RunningShell, ShellProcessOptions } from '../../base/shell/shellProcess';

export type { RuntimeFs };

/** How a runtime runs one program to its end (no shell): its exit code and captured output. */
export interface RuntimeExecOptions {
  readonly cwd: string;
  /** Killed after this long (default 60 s). */
  readonly timeoutMs?: number;
  /** Each of stdout and stderr is kept up to this many bytes (default 16 MiB). */
  readonly maxBytes?: number;
  readonly signal?: AbortSignal;
}

export interface RuntimeExecResult {
  /** The exit code; null when it was killed by a signal (timeout, abort). */
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Process operations of a runtime: present when `process` is among the capabilities. */
export interface RuntimeProcess {
  exec(file: string, args: readonly string[], options: RuntimeExecOptions): Promise<RuntimeExecResult>;
  /**
   * Starts `<shell> -c <command>` in its own process group (Bash and background tasks): output as
   * it arrives, stopped by `kill`. A sandboxing runtime wraps it.
   */
  startShell(options: ShellProcessOptions): RunningShell;
}

/** Where tools run: the local machine, or something a host plugs in. */
export interface Runtime {
  readonly name: string;
  readonly capabilities: readonly RuntimeCapability[];
  /** Present when `fs` is among the capabilities. */
  readonly fs?: RuntimeFs;
  /** Present when `process` is among the capabilities. */
  readonly process?: RuntimeProcess;
}

/** The agent's current runtime (Agent scope). It can be switched while the agent lives. */
export interface IAgentRuntimeService {
  readonly current: Runtime;
  /** Increases on every switch; a call resolved under one generation refuses to run under another. */
  readonly generation: number;
  has(capability: RuntimeCapability): boolean;
  isAvailable(capabilities: readonly RuntimeCapability[]): boolean;
  /** The runtime's fs; throws when the runtime has no `fs` capability. */
  requireFs(): RuntimeFs;
  /** The runtime's process operations; throws when the runtime has no `process` capability. */
  requireProcess(): RuntimeProcess;
  switch(runtime: Runtime): void;
  readonly onDidChange: Event<Runtime>;
}
export const IAgentRuntimeService = createServiceId<IAgentRuntimeService>('AgentRuntimeService');

/** The runtime an agent starts with (bound as a constant by the Agent scope). */
export const IInitialRuntime = createServiceId<Runtime>('InitialRuntime');
