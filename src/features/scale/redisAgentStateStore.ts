import type { Redis } from 'ioredis';
import { Emitter } from '../../base/event';
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
} from '../../services/agentState/agentState';
import { RedisScript } from './redisScript';

/** A stored version is 1–15 digits: a safe integer in JavaScript and exact in Lua's doubles (the scripts check the same). */
const VERSION_PATTERN = /^[1-9][0-9]{0,14}$/;

/** The hash's type, its version field, its value (false when longer than ARGV[1]) and the value's length. */
const READ = new RedisScript(`
local kind = redis.call('TYPE', KEYS[1]).ok
if kind ~= 'hash' then return {kind} end
local length = redis.call('HSTRLEN', KEYS[1], 'value')
local version = redis.call('HGET', KEYS[1], 'version')
if length > tonumber(ARGV[1]) then return {kind, version, false, length} end
return {kind, version, redis.call('HGET', KEYS[1], 'value'), length}
`);

/**
 * Writes ARGV[2] as the next version when the stored one is ARGV[1] ('' : any). Refuses to write over
 * what is not state ('unreadable': the caller sets it aside first, as a read would): another type,
 * a bad version, no value, or a value longer than ARGV[3] or not JSON (decoded here, so an
 * unconditional put never buries a corrupt value under a new version).
 */
const WRITE = new RedisScript(`
local kind = redis.call('TYPE', KEYS[1]).ok
local current = 0
if kind ~= 'none' then
  if kind ~= 'hash' then return {'unreadable'} end
  local version = redis.call('HGET', KEYS[1], 'version')
  if not version or #version > 15 or not string.match(version, '^[1-9]%d*$') then return {'unreadable'} end
  local value = redis.call('HGET', KEYS[1], 'value')
  if not value or #value > tonumber(ARGV[3]) or not pcall(cjson.decode, value) then return {'unreadable'} end
  current = tonumber(version)
end
if ARGV[1] ~= '' and tonumber(ARGV[1]) ~= current then return {'conflict'} end
redis.call('HSET', KEYS[1], 'version', string.format('%d', current + 1), 'value', ARGV[2])
return {'written', current + 1}
`);

/** Renames KEYS[1] to KEYS[2] only if it is still what was read (type ARGV[1], version ARGV[2], value length ARGV[3]). */
const SET_ASIDE = new RedisScript(`
local kind = redis.call('TYPE', KEYS[1]).ok
if kind ~= ARGV[1] then return 0 end
if kind == 'hash' then
  if (redis.call('HGET', KEYS[1], 'version') or '') ~= ARGV[2] then return 0 end
  if redis.call('HSTRLEN', KEYS[1], 'value') ~= tonumber(ARGV[3]) then return 0 end
end
redis.call('RENAME', KEYS[1], KEYS[2])
return 1
`);

/** A read, a change of the stored value between two scripts, a read again: bounded, so a bug cannot spin. */
const MAX_ROUNDS = 8;

type ReadReply = [kind: string, version?: string | null, value?: string | null, length?: number];

interface Unreadable {
  readonly why: string;
  readonly seen: ReadReply;
}

/** Why the raw reply is not state, or the entry it holds. */
function parseReply(reply: ReadReply): AgentStateEntry | Unreadable | undefined {
  const [kind, version, value, length] = reply;
  if (kind === 'none') return undefined;
  if (kind !== 'hash') return { why: `it is a Redis ${kind}, not a state hash {version, value}`, seen: reply };
  if (typeof version !== 'string' || !VERSION_PATTERN.test(version)) return { why: 'its "version" is not a positive integer', seen: reply };
  if (value === null || value === undefined) {
    return { why: (length ?? 0) > 0 ? `its value is ${length} bytes, more than state may be` : 'it has no "value"', seen: reply };
  }
  try {
    return { value: JSON.parse(value) as JsonValue, version: Number(version) };
  } catch (error) {
    return { why: `its value is not JSON (${error instanceof Error ? error.message : String(error)})`, seen: reply };
  }
}

/**
 * IAgentStateStore on Redis: one hash per agent and key, `<prefix>state:<agentId>:<key>` with
 * fields `version` and `value` (JSON text), changed only by Lua scripts, so compare-and-set is
 * atomic across every process on the server. State is keyed by agent id alone (the data directory
 * is per machine): agents sharing one Redis need ids unique across the deployment. A value that is
 * not state is renamed to `<prefix>state-corrupt:<agentId>:<key>:<time>-<pid>-<n>` (never
 * overwritten, never deleted), warned about, and read as empty, like the file store's corrupt files.
 */
export class RedisAgentStateStore implements IAgentStateStore {
  private readonly warningEmitter = new Emitter<AgentStateWarning>();
  readonly onWarning = this.warningEmitter.event;
  private setAsideCount = 0;

  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
  ) {}

  /** The Redis key of `key` of `owner`. */
  redisKey(owner: AgentStateOwner, key: string): string {
    return `${this.keyPrefix}state:${owner.agentId}:${key}`;
  }

  async get(owner: AgentStateOwner, key: string, options: AgentStateReadOptions = {}): Promise<AgentStateEntry | undefined> {
    assertAgentStateKey(key);
    return this.read(owner, key, options.check);
  }

  async put(owner: AgentStateOwner, key: string, value: JsonValue): Promise<number> {
    assertAgentStateKey(key);
    const text = serializeAgentStateValue(key, value);
    for (let round = 1; ; round++) {
      const written = await this.write(owner, key, '', text);
      if (typeof written === 'number') return written;
      this.giveUpAfter(round, key);
      await this.read(owner, key);
    }
  }

  async compareAndSet(owner: AgentStateOwner, key: string, expectedVersion: number, value: JsonValue): Promise<CompareAndSetResult> {
    assertAgentStateKey(key);
    const text = serializeAgentStateValue(key, value);
    for (let round = 1; ; round++) {
      const written = await this.write(owner, key, String(expectedVersion), text);
      if (typeof written === 'number') return { ok: true, version: written };
      this.giveUpAfter(round, key);
      // Unreadable or another version: a read sets what is unreadable aside (it then counts as version 0).
      const current = await this.read(owner, key);
      if (written === 'conflict' && (current?.version ?? 0) !== expectedVersion) return current ? { ok: false, current } : { ok: false };
    }
  }

  /** The new version, 'conflict', or undefined when the stored value is not state. */
  private async write(owner: AgentStateOwner, key: string, expected: string, text: string): Promise<number | 'conflict' | undefined> {
    const [outcome, version] = (await WRITE.run(this.redis, [this.redisKey(owner, key)], [expected, text, MAX_AGENT_STATE_BYTES])) as [string, number?];
    if (outcome === 'written') return version!;
    return outcome === 'conflict' ? 'conflict' : undefined;
  }

  private giveUpAfter(round: number, key: string): void {
    if (round >= MAX_ROUNDS) throw new Error(`State "${key}" kept changing between reads and writes in Redis (${MAX_ROUNDS} rounds); try again.`);
  }

  private async read(owner: AgentStateOwner, key: string, check?: AgentStateReadOptions['check']): Promise<AgentStateEntry | undefined> {
    const redisKey = this.redisKey(owner, key);
    for (let round = 1; ; round++) {
      const reply = (await READ.run(this.redis, [redisKey], [MAX_AGENT_STATE_BYTES])) as ReadReply;
      const parsed = parseReply(reply);
      if (parsed === undefined) return undefined;
      let problem: Unreadable | undefined;
      if ('why' in parsed) problem = parsed;
      else {
        const why = check?.(parsed.value);
        if (why === undefined) return parsed;
        problem = { why, seen: reply };
      }
      if (await this.setAside(owner, key, redisKey, problem)) return undefined;
      // Someone wrote between the read and the rename: read what they wrote.
      this.giveUpAfter(round, key);
    }
  }

  /** Renames what was read aside and warns; false when the key changed since (nothing renamed). */
  private async setAside(owner: AgentStateOwner, key: string, redisKey: string, { why, seen }: Unreadable): Promise<boolean> {
    const keptAt = `${this.keyPrefix}state-corrupt:${owner.agentId}:${key}:${new Date().toISOString()}-${process.pid}-${++this.setAsideCount}`;
    const [kind, version, , length] = seen;
    const renamed = await SET_ASIDE.run(this.redis, [redisKey, keptAt], [kind, version ?? '', length ?? 0]);
    if (renamed !== 1) return false;
    this.warningEmitter.fire({
      agentId: owner.agentId,
      key,
      message: `State "${key}" of agent ${owner.agentId} was unreadable (${why}); it starts empty and the stored value was kept as Redis key ${keptAt}.`,
      keptAt,
    });
    return true;
  }
}
