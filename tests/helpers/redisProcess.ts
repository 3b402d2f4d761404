import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

// The redis-server process alone (no jest), so benchmarks can start one too.

/** A real Debian redis-server on a Unix socket in its own temporary folder, for one test file. */
export interface RedisTestServer {
  /** The socket path: `new IORedis({path})`, or `redis+unix://` URLs. */
  readonly socket: string;
  readonly pid: number;
  /** Kills the server by its pid, waits for it to exit, and removes its folder. */
  stop(): Promise<void>;
}

function ping(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const connection = net.createConnection(socket);
    let reply = '';
    const done = (ok: boolean): void => {
      connection.destroy();
      resolve(ok);
    };
    connection.on('connect', () => connection.write('PING\r\n'));
    connection.on('data', (chunk) => {
      reply += chunk.toString('latin1');
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
    connection.on('error', () => done(false));
  });
}

/** Starts a server and waits (at most `readyWithinMs`) until it answers PING. */
export async function startRedisServer(readyWithinMs = 5000): Promise<RedisTestServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolhost-redis-'));
  const socket = path.join(dir, 'redis.sock');
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', '0', '--unixsocket', socket, '--unixsocketperm', '700', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    if (stderr.length < 4096) stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
    await exited;
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + readyWithinMs;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`redis-server exited with code ${child.exitCode} before answering: ${stderr.trim()}`);
    }
    if (fs.existsSync(socket) && (await ping(socket))) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`redis-server did not answer PING within ${readyWithinMs} ms: ${stderr.trim()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  if (child.pid === undefined) throw new Error('redis-server started without a pid');
  return { socket, pid: child.pid, stop };
}
