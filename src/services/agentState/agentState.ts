import type { Event } from '../../base/event';
import { createServiceId } from '../../di/serviceId';

/** A value the store keeps: what JSON can hold. */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** Whose state: the agent's id and data directory (the file store keeps its files there; other stores may use only the id). */
export interface AgentStateOwner {
  readonly agentId: string;
  readonly dataDir: string;
}

/** A stored value with its version: 1 after the first write, one more after each. */
export interface AgentStateEntry<T extends JsonValue = JsonValue> {
  readonly value: T;
  readonly version: number;
}

export type CompareAndSetResult =
  | { readonly ok: true; readonly version: number }
  /** Someone wrote first: what is stored now (absent when nothing is). Nothing was written. */
  | { readonly ok: false; readonly current?: AgentStateEntry };

/** A state file that could not be read as state; its key reads as empty and the file is kept as `keptAt`. */
export interface AgentStateWarning {
  readonly agentId: string;
  readonly key: string;
  readonly message: string;
  /** Where the unreadable file was moved (absent when it could not be moved). */
  readonly keptAt?: string;
}

export interface AgentStateReadOptions {
  /**
   * Why a stored value is not this key's state (undefined: it is). A value it rejects is treated
   * like a corrupt file: set aside, warned about, read as empty.
   */
  readonly check?: (value: JsonValue) => string | undefined;
}

/** Bad input to the store (a key, a value too large or not JSON); the message says what is allowed. */
export class AgentStateError extends Error {
  override readonly name = 'AgentStateError';
}

/** Keys are path-like (`todo`, `user/question`): lower-case segments of letters, digits, `-` and `_`. */
export const AGENT_STATE_KEY_PATTERN = /^[a-z][a-z0-9_-]{0,63}(\/[a-z0-9][a-z0-9_-]{0,63}){0,3}$/;
/** A value's JSON text is at most this long (state is small: a todo list, a goal, a mode). */
export const MAX_AGENT_STATE_BYTES = 1024 * 1024;

/**
 * Durable per-agent state (App scope): small JSON values under path-like keys, each with a
 * version for compare-and-set. An agent created again with the same id and data directory reads
 * what it left. The default keeps one JSON file per key under `<dataDir>/state/`, replaced
 * atomically; a Redis adapter can serve many processes.
 */
export interface IAgentStateStore {
  /** The value and version under `key`; undefined when nothing is stored (or the stored file was unreadable: see onWarning). */
  get(owner: AgentStateOwner, key: string, options?: AgentStateReadOptions): Promise<AgentStateEntry | undefined>;
  /** Writes unconditionally; resolves to the new version. */
  put(owner: AgentStateOwner, key: string, value: JsonValue): Promise<number>;
  /**
   * Writes only when the stored version is `expectedVersion` (0: nothing stored). Writers of one
   * key are serialized within the store, so of two racing calls with the same expectation one wins.
   */
  compareAndSet(owner: AgentStateOwner, key: string, expectedVersion: number, value: JsonValue): Promise<CompareAndSetResult>;
  /** A stored value could not be read (corrupt, or not state); the key reads as empty. */
  readonly onWarning: Event<AgentStateWarning>;
}
export const IAgentStateStore = createServiceId<IAgentStateStore>('AgentStateStore');

/** Throws AgentStateError unless `key` is a valid state key. */
export function assertAgentStateKey(key: string): void {
  if (typeof key !== 'string' || !AGENT_STATE_KEY_PATTERN.test(key)) {
    throw new AgentStateError(
      `State key ${JSON.stringify(key)} is invalid: use 1–4 "/"-separated segments of lower-case letters, digits, "-" and "_" (at most 64 each), starting with a letter, e.g. "todo" or "user/question".`,
    );
  }
}

/** The JSON text of `value`; throws AgentStateError when it is not JSON or too large. */
export function serializeAgentStateValue(key: string, value: JsonValue): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new AgentStateError(`State "${key}" is not JSON: ${error instanceof Error ? error.message : String(error)}.`);
  }
  if (text === undefined) throw new AgentStateError(`State "${key}" is not JSON: store null, a boolean, a number, a string, an array or an object.`);
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_AGENT_STATE_BYTES) {
    throw new AgentStateError(`State "${key}" is ${bytes} bytes of JSON; at most ${MAX_AGENT_STATE_BYTES} are kept. Store less (e.g. drop finished items).`);
  }
  return text;
}

/**
 * Reads, changes and writes one key with compare-and-set, retrying when another writer came first.
 * `change` gets the current entry (undefined: empty) and returns the new value and a result, or
 * `{ skip }` to write nothing. `check` is passed to `get`.
 */
export async function updateAgentState<R>(
  store: IAgentStateStore,
  owner: AgentStateOwner,
  key: string,
  change: (current: AgentStateEntry | undefined) => { readonly value: JsonValue; readonly result: R } | { readonly skip: R },
  options: AgentStateReadOptions & { readonly maxAttempts?: number } = {},
): Promise<{ readonly result: R; readonly version?: number }> {
  const maxAttempts = options.maxAttempts ?? 8;
  for (let attempt = 1; ; attempt++) {
    const current = await store.get(owner, key, options.check ? { check: options.check } : {});
    const outcome = change(current);
    if ('skip' in outcome) return { result: outcome.skip };
    const written = await store.compareAndSet(owner, key, current?.version ?? 0, outcome.value);
    if (written.ok) return { result: outcome.result, version: written.version };
    if (attempt >= maxAttempts) throw new AgentStateError(`State "${key}" kept changing under ${maxAttempts} attempts to update it; try again.`);
  }
}
