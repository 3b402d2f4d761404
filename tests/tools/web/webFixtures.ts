import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import * as nodePath from 'node:path';
import type { IDnsResolver, ResolvedAddress } from '../../../src/tools/web/contract';
import { makeTempDir, removeDir } from '../../helpers/tempDir';

/** A route of a local test server: it gets the request and answers it (or never does). */
export type Route = (request: http.IncomingMessage, response: http.ServerResponse) => void;

/** A local HTTP or HTTPS server on 127.0.0.1, with routes by path and a log of the requests it got. */
export interface LocalServer {
  readonly port: number;
  /** http(s)://127.0.0.1:<port> */
  readonly origin: string;
  readonly protocol: 'http' | 'https';
  /** Every request seen: method, path, host header and request headers. */
  readonly requests: { readonly method: string; readonly path: string; readonly headers: http.IncomingHttpHeaders }[];
  route(path: string, handler: Route): void;
  /** `protocol://name:port/path`: a URL with a host name the test resolver maps. */
  url(path: string, host?: string): string;
  close(): Promise<void>;
}

export async function startServer(options: { readonly tls?: { readonly key: string; readonly cert: string }; readonly host?: string } = {}): Promise<LocalServer> {
  const routes = new Map<string, Route>();
  const requests: { method: string; path: string; headers: http.IncomingHttpHeaders }[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const handler = (request: http.IncomingMessage, response: http.ServerResponse) => {
    const path = (request.url ?? '/').split('?')[0]!;
    requests.push({ method: request.method ?? 'GET', path: request.url ?? '/', headers: request.headers });
    const route = routes.get(path);
    if (route) route(request, response);
    else response.writeHead(404, { 'content-type': 'text/plain' }).end(`no route ${path}`);
  };
  const server = options.tls ? https.createServer({ key: options.tls.key, cert: options.tls.cert }, handler) : http.createServer(handler);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  const protocol = options.tls ? 'https' : 'http';
  return {
    port,
    origin: `${protocol}://${host}:${port}`,
    protocol,
    requests,
    route: (path, route) => void routes.set(path, route),
    url: (path, name = host) => `${protocol}://${name}:${port}${path}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A self-signed certificate for 127.0.0.1 and the test host names, made with openssl at test time. */
export function makeCertificate(names: readonly string[]): { readonly key: string; readonly cert: string } {
  const dir = makeTempDir('toolhost-cert-');
  try {
    const keyPath = nodePath.join(dir, 'key.pem');
    const certPath = nodePath.join(dir, 'cert.pem');
    const san = ['IP:127.0.0.1', ...names.map((n) => `DNS:${n}`)].join(',');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyPath, '-out', certPath, '-days', '1', '-subj', '/CN=toolhost-test', '-addext', `subjectAltName=${san}`], {
      stdio: 'ignore',
    });
    return { key: fs.readFileSync(keyPath, 'utf8'), cert: fs.readFileSync(certPath, 'utf8') };
  } finally {
    removeDir(dir);
  }
}

/**
 * A resolver with fixed answers: a name maps to one answer for every lookup, or to a sequence
 * (the nth lookup gets the nth answer, the last repeats), which is how a rebinding DNS server
 * behaves. Unknown names fail with ENOTFOUND. It counts lookups per name.
 */
export class TestResolver implements IDnsResolver {
  readonly lookups = new Map<string, number>();
  constructor(private readonly answers: Record<string, string | readonly string[] | readonly (readonly string[])[]>) {}

  async lookup(host: string): Promise<readonly ResolvedAddress[]> {
    const count = this.lookups.get(host) ?? 0;
    this.lookups.set(host, count + 1);
    const answer = this.answers[host];
    if (answer === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    const sequence: readonly (readonly string[])[] = typeof answer === 'string' ? [[answer]] : Array.isArray(answer[0]) ? (answer as readonly (readonly string[])[]) : [answer as readonly string[]];
    const addresses = sequence[Math.min(count, sequence.length - 1)]!;
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  }
}

/** A CONNECT proxy on 127.0.0.1 written for the tests: it tunnels every target to 127.0.0.1 at the target's port and records what was asked. */
export interface TestProxy {
  readonly port: number;
  /** http://127.0.0.1:<port> */
  readonly url: string;
  /** Each CONNECT target (`host:port`), in order. */
  readonly connects: string[];
  /** Answer CONNECT with this status instead of tunnelling (e.g. 403). */
  refuseWith: number | undefined;
  close(): Promise<void>;
}

export async function startConnectProxy(): Promise<TestProxy> {
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((_request, response) => response.writeHead(405).end('CONNECT only'));
  const proxy: TestProxy = {
    port: 0,
    url: '',
    connects: [],
    refuseWith: undefined,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('connect', (request: http.IncomingMessage, client: import('node:net').Socket, head: Buffer) => {
    const target = request.url ?? '';
    proxy.connects.push(target);
    if (proxy.refuseWith !== undefined) {
      client.end(`HTTP/1.1 ${proxy.refuseWith} Refused\r\n\r\n`);
      return;
    }
    const port = Number(target.slice(target.lastIndexOf(':') + 1));
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const upstream = (require('node:net') as typeof import('node:net')).connect(port, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(proxy, { port, url: `http://127.0.0.1:${port}` });
}
