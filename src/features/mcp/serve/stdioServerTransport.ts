import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../../../base/errors';
import { formatBytes, formatCount } from '../../../base/strings';
import { MAX_MESSAGE_BYTES } from '../client/stdioProcessTransport';
import { mcpSdk } from '../sdk';

/** JSON-RPC "Invalid Request": the answer to a message over the size limit. */
export const MCP_MESSAGE_TOO_LARGE_CODE = -32600;
/** Bytes kept from the start and from the end of a line over the limit, to find its id. */
const ID_WINDOW_BYTES = 4096;

export interface McpStdioServerTransportOptions {
  /** The largest message (one line) that is read; default 64 MiB, as the client side. */
  readonly maxMessageBytes?: number;
}

/**
 * The MCP stdio transport of a server (newline-delimited JSON-RPC on stdin and stdout), instead of
 * the SDK's StdioServerTransport, which ends the connection, unanswered, at the first message over
 * 10 MB, and copies the whole buffer on every chunk. Here a line is joined once, when it is
 * complete; a line over the limit is dropped as it arrives (only its first and last 4 KiB are
 * kept), answered with a JSON-RPC error naming the limit (with its id when the start or the end
 * of the line shows it, else null), and the server goes on with the next line. A write to a
 * closed stdout rejects instead of waiting for a drain that never comes.
 */
export class McpStdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private readonly maxMessageBytes: number;
  private readonly reader: JsonRpcLineReader;
  private started = false;
  private closed = false;

  constructor(
    private readonly stdin: Readable = process.stdin,
    private readonly stdout: Writable = process.stdout,
    options: McpStdioServerTransportOptions = {},
  ) {
    this.maxMessageBytes = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
    this.reader = new JsonRpcLineReader(this.maxMessageBytes, {
      line: (text) => this.receive(text),
      oversized: (line) => this.refuse(line),
    });
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('McpStdioServerTransport is already started.');
    this.started = true;
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onStdinError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.reject(new Error('Not connected: the transport is closed.'));
    return this.write(mcpSdk.sharedStdio().serializeMessage(message));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onStdinError);
    // Pause only when nobody else reads stdin (as the SDK's transport does).
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.reader.clear();
    this.onclose?.();
  }

  private readonly onData = (chunk: Buffer | string): void => {
    this.reader.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  };

  private readonly onStdinError = (error: Error): void => {
    this.onerror?.(error);
  };

  private receive(text: string): void {
    if (this.closed || text.trim() === '') return;
    try {
      this.onmessage?.(mcpSdk.sharedStdio().deserializeMessage(text));
    } catch (error) {
      // A line that is not JSON-RPC (a client logging on our stdin): reported, skipped.
      this.onerror?.(error instanceof Error ? error : new Error(errorMessage(error)));
    }
  }

  private refuse(line: OversizedLine): void {
    if (this.closed) return;
    const id = recoverRequestId(line.head.toString('utf8'), line.tail.toString('utf8'));
    const message =
      `Message too large: ${formatBytes(line.bytes)} (${formatCount(line.bytes)} bytes) is over the limit of ` +
      `${formatBytes(this.maxMessageBytes)} for one JSON-RPC message, so it was not processed. Send a smaller request.`;
    this.onerror?.(new Error(`a message of ${formatCount(line.bytes)} bytes is over the limit of ${formatBytes(this.maxMessageBytes)}; answered with error ${MCP_MESSAGE_TOO_LARGE_CODE} (id ${JSON.stringify(id)})`));
    const answer = JSON.stringify({ jsonrpc: '2.0', id, error: { code: MCP_MESSAGE_TOO_LARGE_CODE, message } }) + '\n';
    this.write(answer).catch((error: unknown) => this.onerror?.(new Error(`answering an oversized message failed: ${errorMessage(error)}`)));
  }

  private write(text: string): Promise<void> {
    const stdout = this.stdout;
    return new Promise((resolve, reject) => {
      if (stdout.destroyed || !stdout.writable) return reject(new Error('Not connected: stdout is closed.'));
      const settle = (error?: Error) => {
        stdout.off('drain', onDrain);
        stdout.off('close', onClose);
        if (error) reject(error);
        else resolve();
      };
      const onDrain = () => settle();
      const onClose = () => settle(new Error('Not connected: stdout closed.'));
      if (stdout.write(text)) return resolve();
      stdout.once('drain', onDrain);
      stdout.once('close', onClose);
    });
  }
}

export interface OversizedLine {
  /** Its length in bytes (without the newline). */
  readonly bytes: number;
  /** Its first and last bytes (at most 4 KiB each). */
  readonly head: Buffer;
  readonly tail: Buffer;
}

/**
 * Splits a byte stream into lines. A line is joined once it is complete (no copy per chunk); a
 * line over `maxBytes` is not kept: only its length, start and end, reported when it ends.
 */
export class JsonRpcLineReader {
  private parts: Buffer[] = [];
  private size = 0;
  private oversized: { bytes: number; head: Buffer; tail: Buffer } | undefined;

  constructor(
    private readonly maxBytes: number,
    private readonly handlers: { line(text: string): void; oversized(line: OversizedLine): void },
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      this.take(chunk.subarray(start, newline < 0 ? chunk.length : newline));
      if (newline < 0) return;
      this.endLine();
      start = newline + 1;
    }
  }

  clear(): void {
    this.parts = [];
    this.size = 0;
    this.oversized = undefined;
  }

  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    const oversized = this.oversized;
    if (oversized) {
      oversized.bytes += piece.length;
      if (oversized.head.length < ID_WINDOW_BYTES) oversized.head = firstBytes([oversized.head, piece], ID_WINDOW_BYTES);
      oversized.tail = lastBytes([oversized.tail, piece], ID_WINDOW_BYTES);
      return;
    }
    if (this.size + piece.length <= this.maxBytes) {
      this.parts.push(piece);
      this.size += piece.length;
      return;
    }
    const all = [...this.parts, piece];
    this.oversized = { bytes: this.size + piece.length, head: firstBytes(all, ID_WINDOW_BYTES), tail: lastBytes(all, ID_WINDOW_BYTES) };
    this.parts = [];
    this.size = 0;
  }

  private endLine(): void {
    const oversized = this.oversized;
    const parts = this.parts;
    const size = this.size;
    this.clear();
    if (oversized) {
      this.handlers.oversized(oversized);
      return;
    }
    let line = parts.length === 1 ? parts[0]! : Buffer.concat(parts, size);
    if (line.length > 0 && line[line.length - 1] === 0x0d) line = line.subarray(0, line.length - 1);
    this.handlers.line(line.toString('utf8'));
  }
}

function firstBytes(parts: readonly Buffer[], n: number): Buffer {
  const kept: Buffer[] = [];
  let size = 0;
  for (const part of parts) {
    if (size >= n) break;
    const piece = part.subarray(0, n - size);
    kept.push(piece);
    size += piece.length;
  }
  return Buffer.concat(kept, size);
}

function lastBytes(parts: readonly Buffer[], n: number): Buffer {
  const kept: Buffer[] = [];
  let size = 0;
  for (let i = parts.length - 1; i >= 0 && size < n; i--) {
    const part = parts[i]!;
    const piece = part.subarray(Math.max(0, part.length - (n - size)));
    kept.unshift(piece);
    size += piece.length;
  }
  return Buffer.concat(kept, size);
}

/**
 * The id of a JSON-RPC message of which only the start and the end are known: a top-level `"id"`
 * key found by scanning the start (keys in any order before the first large value), or an
 * `"id": …}` that ends the message (the SDK writes the id last). null when neither shows it.
 */
export function recoverRequestId(head: string, tail: string): RequestId | null {
  return idFromStart(head) ?? idFromEnd(tail) ?? null;
}

const ID_AT_END = /[,{]\s*"id"\s*:\s*(-?\d{1,16}|"(?:[^"\\]|\\.){0,256}")\s*\}\s*$/;

function idFromEnd(tail: string): RequestId | undefined {
  const match = ID_AT_END.exec(tail);
  return match ? parseId(match[1]!) : undefined;
}

function parseId(text: string): RequestId | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value))) return value;
  } catch {
    // not a valid id
  }
  return undefined;
}

/** Scans the start of a message for its top-level "id" (strings and nesting skipped). */
function idFromStart(text: string): RequestId | undefined {
  let depth = 0;
  let keyPosition = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const end = endOfString(text, i);
      if (end < 0) return undefined;
      if (depth === 1 && keyPosition) {
        keyPosition = false;
        let j = skipSpace(text, end + 1);
        if (text[j] !== ':') return undefined;
        j = skipSpace(text, j + 1);
        if (text.slice(i + 1, end) === 'id') return idValueAt(text, j);
        i = j - 1;
        continue;
      }
      i = end;
    } else if (c === '{' || c === '[') {
      depth++;
      keyPosition = c === '{' && depth === 1;
    } else if (c === '}' || c === ']') {
      depth--;
      if (depth <= 0) return undefined;
    } else if (c === ',' && depth === 1) {
      keyPosition = true;
    }
  }
  return undefined;
}

function idValueAt(text: string, at: number): RequestId | undefined {
  if (text[at] === '"') {
    const end = endOfString(text, at);
    return end < 0 ? undefined : parseId(text.slice(at, end + 1));
  }
  // A number is whole only when something follows it in the window.
  const number = /^-?\d{1,16}(?=[\s,}])/.exec(text.slice(at, at + 20));
  return number ? parseId(number[0]) : undefined;
}

/** The index of the quote that closes the string opening at `start`, or -1 when it is cut. */
function endOfString(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return -1;
}

function skipSpace(text: string, at: number): number {
  let i = at;
  while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  return i;
}
