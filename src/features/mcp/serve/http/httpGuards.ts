import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as net from 'node:net';

/** The most a POST body may hold unless configured otherwise (the SDK's own default). */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

/** `127.0.0.0/8`, `::1` (and its IPv4-mapped forms) or `localhost`: only this machine can connect. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (bare.toLowerCase() === 'localhost') return true;
  if (net.isIPv4(bare)) return bare.startsWith('127.');
  if (net.isIPv6(bare)) {
    const lower = bare.toLowerCase();
    return lower === '::1' || lower === '0:0:0:0:0:0:0:1' || /^::ffff:127\./.test(lower);
  }
  return false;
}

/** Parses `HOST:PORT` (IPv6 in brackets); throws with the accepted forms. */
export function parseHostPort(text: string): { readonly host: string; readonly port: number } {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+):(\d{1,5})$/.exec(text.trim());
  const port = match ? Number(match[2]) : NaN;
  if (!match || port > 65535) {
    throw new Error(`"${text}" is not HOST:PORT; give e.g. 127.0.0.1:8080, localhost:0 (any free port) or [::1]:8080.`);
  }
  const host = match[1]!;
  return { host: host.startsWith('[') ? host.slice(1, -1) : host, port };
}

/** The bearer token of a request matches `token` (compared in constant time, whatever the lengths). */
export function bearerMatches(req: IncomingMessage, token: string): boolean {
  const header = req.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (!match) return false;
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(match[1]!), digest(token));
}

/** The origins a browser page on this server itself would send, for the bound host and port. */
export function defaultAllowedOrigins(host: string, port: number): string[] {
  const hostPart = net.isIPv6(host) ? `[${host}]` : host;
  const hosts = new Set([hostPart, 'localhost', '127.0.0.1', '[::1]']);
  return [...hosts].flatMap((h) => [`http://${h}:${port}`, `https://${h}:${port}`]);
}

/** Normalizes an origin (`https://Example.com:443` → `https://example.com`); undefined when it is not one. */
export function normalizeOrigin(origin: string): string | undefined {
  try {
    const url = new URL(origin);
    return url.origin === 'null' ? undefined : url.origin;
  } catch {
    return undefined;
  }
}

export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
}

/**
 * Reads a request body of at most `maxBytes`: a declared Content-Length over the limit is refused
 * before anything is read, and a body that grows past it while streaming stops being read.
 */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.reject(new BodyTooLargeError(`${declared} bytes`));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        req.off('data', onData);
        req.pause();
        reject(new BodyTooLargeError(`more than ${maxBytes} bytes`));
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

/** Answers an HTTP-level refusal as a JSON-RPC error object, which MCP clients show. */
export function sendError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
