import { comparablePath, covers, keysOverlap } from './accessPaths';

/**
 * Resources a tool call touches, declared at resolve time so the scheduler can run calls that do
 * not conflict side by side (DESIGN §4).
 */
export type FileAccessOperation = 'read' | 'write' | 'search';
export type StateAccessOperation = 'read' | 'write';

export interface FileAccess {
  readonly kind: 'file';
  readonly op: FileAccessOperation;
  /** A canonical absolute path (symlinks resolved where they exist). */
  readonly path: string;
  /** Covers everything below `path` as well. */
  readonly recursive?: boolean;
}

/** Starts processes. Informational for approval; only `all` conflicts with it. */
export interface ProcessAccess {
  readonly kind: 'process';
}

/** Talks to the network. Informational for approval; only `all` conflicts with it. */
export interface NetworkAccess {
  readonly kind: 'network';
}

/** Agent state such as the task list or the todo list, keyed like a path (`tasks`, `tasks/7`). */
export interface StateAccess {
  readonly kind: 'state';
  readonly key: string;
  readonly op: StateAccessOperation;
}

/** Everything: conflicts with every call that touches anything. */
export interface AllAccess {
  readonly kind: 'all';
}

export type ToolAccess = FileAccess | ProcessAccess | NetworkAccess | StateAccess | AllAccess;
export type ToolAccesses = readonly ToolAccess[];

function pathsOverlap(a: FileAccess, b: FileAccess): boolean {
  const pa = comparablePath(a.path);
  const pb = comparablePath(b.path);
  if (pa === pb) return true;
  return (a.recursive === true && covers(pa, pb)) || (b.recursive === true && covers(pb, pa));
}

/** Whether two single accesses conflict. */
export function accessConflict(a: ToolAccess, b: ToolAccess): boolean {
  if (a.kind === 'all' || b.kind === 'all') return true;
  if (a.kind === 'file' && b.kind === 'file') {
    return (a.op === 'write' || b.op === 'write') && pathsOverlap(a, b);
  }
  if (a.kind === 'state' && b.kind === 'state') {
    return (a.op === 'write' || b.op === 'write') && keysOverlap(a.key, b.key);
  }
  return false;
}

/** Whether two calls with these access lists must not run at the same time. */
export function conflict(left: ToolAccesses, right: ToolAccesses): boolean {
  for (const a of left) {
    for (const b of right) {
      if (accessConflict(a, b)) return true;
    }
  }
  return false;
}

/** Whether the accesses only read (files, state) and touch no process, network or `all`. */
export function isReadOnlyAccesses(accesses: ToolAccesses): boolean {
  return accesses.every((a) => (a.kind === 'file' && a.op !== 'write') || (a.kind === 'state' && a.op === 'read'));
}

const file = (op: FileAccessOperation, path: string, recursive = false): FileAccess =>
  recursive ? { kind: 'file', op, path, recursive: true } : { kind: 'file', op, path };

export const ToolAccesses = {
  none: (): ToolAccesses => [],
  all: (): ToolAccesses => [{ kind: 'all' }],
  file,
  readFile: (path: string): FileAccess => file('read', path),
  writeFile: (path: string): FileAccess => file('write', path),
  readTree: (path: string): FileAccess => file('read', path, true),
  writeTree: (path: string): FileAccess => file('write', path, true),
  searchTree: (path: string): FileAccess => file('search', path, true),
  process: (): ProcessAccess => ({ kind: 'process' }),
  network: (): NetworkAccess => ({ kind: 'network' }),
  readState: (key: string): StateAccess => ({ kind: 'state', key, op: 'read' }),
  writeState: (key: string): StateAccess => ({ kind: 'state', key, op: 'write' }),
  conflict,
  isReadOnly: isReadOnlyAccesses,
} as const;
