import { createServiceId } from '../../di/serviceId';

/**
 * The os family's contract for other families: the file-state service (Write and Edit share the
 * stale-write guard) and the bash section of the configuration (the task service runs commands).
 */
export { bashConfig, type BashConfig } from './osConfig';

/** What an agent last saw of a file: after its Read, or after its own Write or Edit. */
export interface FileSnapshot {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  /**
   * SHA-256 (hex) of the whole content. Absent when Read did not hash the file (it was larger
   * than `read.lineCountMaxBytes`); the check then compares size and timestamps only.
   */
  readonly sha256?: string;
}

/** The current state of a file about to be written. */
export interface CurrentFileState {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  /** The SHA-256 of the current content, computed only when the check needs it. */
  sha256(): Promise<string>;
}

export type StaleWriteCheck =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: 'not-read' | 'changed'; readonly message: string };

/**
 * The stale-write guard (Agent scope): what this agent has seen of each file, keyed by canonical
 * path. Read records after reading a file; Write and Edit check right before they write to an
 * existing file and record what they wrote. A runtime switch forgets everything.
 */
export interface IAgentFileStateService {
  /** Whether the guard refuses writes (config `staleGuard.enabled`). Records are kept either way. */
  readonly enabled: boolean;
  /** Read hashes files up to this size (config `read.lineCountMaxBytes`, the size it scans whole). */
  readonly hashMaxBytes: number;
  /**
   * Records a snapshot. `generation` is the runtime generation the caller ran under; a snapshot
   * from an earlier runtime is dropped.
   */
  record(path: string, snapshot: FileSnapshot, generation: number): void;
  get(path: string): FileSnapshot | undefined;
  forget(path: string): void;
  clear(): void;
  /**
   * May this agent write to the existing file at `path` (canonical)? `shown` is the path as the
   * model wrote it, used in the message.
   */
  check(path: string, shown: string, current: CurrentFileState): Promise<StaleWriteCheck>;
}
export const IAgentFileStateService = createServiceId<IAgentFileStateService>('AgentFileStateService');

export function notReadMessage(shown: string): string {
  return `"${shown}" has not been read by this agent yet. Read it before writing to it.`;
}

export function changedMessage(shown: string): string {
  return `"${shown}" has changed on disk since this agent last read it. Read it again before writing to it.`;
}

/**
 * The App-wide path lock table (App scope): every file write of any agent of the App (Write,
 * Edit) runs holding the lock of its path, from its stale-write check to its rename, so a
 * subagent's write and its parent's write of one file never interleave; the later one then finds
 * the file changed and refuses, instead of overwriting.
 */
export interface IFileWriteLocks {
  /** Runs `work` holding the lock of `path` (canonical absolute); rejects if `signal` aborts while it waits. */
  withLock<T>(path: string, work: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  /** The paths held or waited for now. */
  readonly lockedPaths: readonly string[];
}
export const IFileWriteLocks = createServiceId<IFileWriteLocks>('FileWriteLocks');
