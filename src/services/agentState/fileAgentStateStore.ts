import * as fsp from 'node:fs/promises';
import * as nodePath from 'node:path';
import { injectable } from 'inversify';
import { isErrnoException } from '../../base/errors';
import { Emitter } from '../../base/event';
import { writeFileAtomic } from '../../base/fs/atomicWrite';
import {
  type AgentStateEntry,
  type AgentStateOwner,
  type AgentStateReadOptions,
  type AgentStateWarning,
  assertAgentStateKey,
  type CompareAndSetResult,
  type IAgentStateStore,
  type JsonValue,
  MAX_AGENT_STATE_BYTES,
  serializeAgentStateValue,
} from './agentState';

/** The folder under an agent's data directory that holds its state files. */
export const AGENT_STATE_FOLDER = 'state';

/** Where the file store keeps `key` of `owner`: `<dataDir>/state/<key>.json` (a key's `/` makes folders). */
export function agentStateFilePath(owner: AgentStateOwner, key: string): string {
  return nodePath.join(owner.dataDir, AGENT_STATE_FOLDER, ...key.split('/')) + '.json';
}

interface StoredFile {
  readonly version: number;
  readonly value: JsonValue;
}

function parseStoredFile(text: string): StoredFile | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return `it is not JSON (${error instanceof Error ? error.message : String(error)})`;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return 'it is not a state object {"version", "value"}';
  const { version, value } = parsed as { version?: unknown; value?: unknown };
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 1) return 'its "version" is not a positive integer';
  if (value === undefined) return 'it has no "value"';
  return { version, value: value as JsonValue };
}

/**
 * The default IAgentStateStore: one JSON file per key, `{"version": n, "value": …}`, replaced
 * atomically (temporary file, fsync, rename) like Write. Calls on one file are serialized in this
 * process; separate processes sharing a data directory are not coordinated (one agent, one process).
 */
@injectable()
export class FileAgentStateStore implements IAgentStateStore {
  private readonly warningEmitter = new Emitter<AgentStateWarning>();
  readonly onWarning = this.warningEmitter.event;
  /** The tail of each file's queue of calls. */
  private readonly queues = new Map<string, Promise<unknown>>();

  async get(owner: AgentStateOwner, key: string, options: AgentStateReadOptions = {}): Promise<AgentStateEntry | undefined> {
    assertAgentStateKey(key);
    const path = agentStateFilePath(owner, key);
    return this.serialized(path, () => this.read(owner, key, path, options.check));
  }

  async put(owner: AgentStateOwner, key: string, value: JsonValue): Promise<number> {
    assertAgentStateKey(key);
    const text = serializeAgentStateValue(key, value);
    const path = agentStateFilePath(owner, key);
    return this.serialized(path, async () => {
      const version = ((await this.read(owner, key, path))?.version ?? 0) + 1;
      await this.write(path, version, text);
      return version;
    });
  }

  async compareAndSet(owner: AgentStateOwner, key: string, expectedVersion: number, value: JsonValue): Promise<CompareAndSetResult> {
    assertAgentStateKey(key);
    const text = serializeAgentStateValue(key, value);
    const path = agentStateFilePath(owner, key);
    return this.serialized(path, async (): Promise<CompareAndSetResult> => {
      const current = await this.read(owner, key, path);
      if ((current?.version ?? 0) !== expectedVersion) return current ? { ok: false, current } : { ok: false };
      const version = expectedVersion + 1;
      await this.write(path, version, text);
      return { ok: true, version };
    });
  }

  private async serialized<T>(path: string, run: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(path) ?? Promise.resolve();
    const next = previous.then(run, run);
    const tail = next.catch(() => undefined);
    this.queues.set(path, tail);
    try {
      return await next;
    } finally {
      if (this.queues.get(path) === tail) this.queues.delete(path);
    }
  }

  private async read(owner: AgentStateOwner, key: string, path: string, check?: AgentStateReadOptions['check']): Promise<AgentStateEntry | undefined> {
    let text: string;
    try {
      const stat = await fsp.stat(path);
      // The file's own bound: a value is at most MAX_AGENT_STATE_BYTES plus the envelope.
      if (!stat.isFile()) return await this.setAside(owner, key, path, 'it is not a regular file');
      if (stat.size > MAX_AGENT_STATE_BYTES + 64) return await this.setAside(owner, key, path, `it is ${stat.size} bytes, more than state may be`);
      text = await fsp.readFile(path, 'utf8');
    } catch (error) {
      if (isErrnoException(error) && error.code === 'ENOENT') return undefined;
      throw error;
    }
    const parsed = parseStoredFile(text);
    if (typeof parsed === 'string') return this.setAside(owner, key, path, parsed);
    const problem = check?.(parsed.value);
    if (problem !== undefined) return this.setAside(owner, key, path, problem);
    return { value: parsed.value, version: parsed.version };
  }

  /** Moves an unreadable file aside (never overwritten, never deleted) and warns; the key reads as empty. */
  private async setAside(owner: AgentStateOwner, key: string, path: string, why: string): Promise<undefined> {
    const keptAt = `${path}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}-${process.pid}`;
    let moved = true;
    try {
      await fsp.rename(path, keptAt);
    } catch {
      moved = false;
    }
    const message = moved
      ? `State "${key}" of agent ${owner.agentId} was unreadable (${why}); it starts empty and the file was kept as ${keptAt}.`
      : `State "${key}" of agent ${owner.agentId} is unreadable (${why}) and could not be moved aside; it reads as empty until ${path} is fixed or removed.`;
    this.warningEmitter.fire({ agentId: owner.agentId, key, message, ...(moved ? { keptAt } : {}) });
    if (!moved) throw new Error(message);
    return undefined;
  }

  private async write(path: string, version: number, valueText: string): Promise<void> {
    await fsp.mkdir(nodePath.dirname(path), { recursive: true });
    await writeFileAtomic(fsp, path, (sink) => sink.write(`{"version":${version},"value":${valueText}}\n`));
  }
}
