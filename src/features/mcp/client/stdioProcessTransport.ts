import type { ChildProcess } from 'node:child_process';
import type { ReadBuffer } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { newRunId, withRunMarker } from '../../../base/shell/processGroup';
import { ensureProcessWatchdog, unwatchProcessGroup, watchProcessGroup } from '../../../base/shell/processWatchdog';
import { mcpSdk } from '../sdk';
import { nodeBuiltins } from '../../../base/nodeBuiltins';

export interface StdioProcessOptions {
  readonly command: string;
  readonly args: readonly string[];
  /** The whole environment of the process. */
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
}

export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** One JSON-RPC message (a line) may be this large: a tool result with a big image fits. */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
const STDERR_TAIL_CHARS = 4_096;
const STDERR_TAIL_LINES = 10;
const GRACEFUL_EXIT_MS = 500;
const TERM_EXIT_MS = 2_000;
// POSIX: the server gets its own process group, so closing it also ends what it started (npx → node).
const USE_PROCESS_GROUP = process.platform !== 'win32';

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/**
 * The MCP stdio transport (newline-delimited JSON-RPC over the child's stdin/stdout, framed by the
 * SDK's ReadBuffer), with what the SDK's StdioClientTransport does not give: the exit code and
 * signal, the tail of stderr for error messages, and a close that ends the whole process group.
 */
export class StdioProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private child: ChildProcess | undefined;
  private readonly readBuffer: ReadBuffer = new (mcpSdk.sharedStdio().ReadBuffer)({ maxBufferSize: MAX_MESSAGE_BYTES });
  private failure: string | undefined;
  private stderrTail = '';
  private exitInfo: ProcessExit | undefined;
  private closed = false;
  private spawned = false;
  private closedPromise: Promise<void> | undefined;
  /** Resolves true once the process has spawned, false when spawning failed. */
  private spawnSettled: Promise<boolean> = Promise.resolve(false);
  private closing: Promise<void> | undefined;

  constructor(private readonly options: StdioProcessOptions) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** How the process ended, once it has. */
  get exit(): ProcessExit | undefined {
    return this.exitInfo;
  }

  /** Why toolhost ended the connection itself (a protocol violation), if it did. */
  get protocolFailure(): string | undefined {
    return this.failure;
  }

  /** The last lines the process wrote on stderr. */
  get stderr(): string {
    const lines = this.stderrTail.split('\n').filter((line) => line.trim() !== '');
    return lines.slice(-STDERR_TAIL_LINES).join('\n');
  }

  start(): Promise<void> {
    if (this.child) return Promise.reject(new Error('The stdio transport is already started.'));
    return new Promise((resolve, reject) => {
      let child: ChildProcess;
      // The watchdog first, and a run marker: a server is covered should toolhost die right after the spawn.
      if (USE_PROCESS_GROUP) ensureProcessWatchdog();
      try {
        child = nodeBuiltins.childProcess().spawn(this.options.command, [...this.options.args], {
          cwd: this.options.cwd,
          env: USE_PROCESS_GROUP ? withRunMarker(this.options.env, newRunId()) : this.options.env,
          stdio: ['pipe', 'pipe', 'pipe'],
          detached: USE_PROCESS_GROUP,
          windowsHide: true,
          shell: false,
        });
      } catch (error) {
        reject(error as Error);
        return;
      }
      this.child = child;
      // Should toolhost die without closing it, the watchdog ends the server's group.
      if (USE_PROCESS_GROUP && child.pid !== undefined) watchProcessGroup(child.pid);
      this.closedPromise = new Promise((done) => child.once('close', () => done()));
      let settleSpawn!: (spawned: boolean) => void;
      this.spawnSettled = new Promise((done) => (settleSpawn = done));
      child.once('spawn', () => {
        this.spawned = true;
        settleSpawn(true);
        resolve();
      });
      child.on('error', (error) => {
        if (!this.spawned) {
          settleSpawn(false);
          reject(error);
          this.finish();
        } else this.onerror?.(error);
      });
      child.once('exit', (code, signal) => {
        this.exitInfo ??= { code, signal };
      });
      child.once('close', (code, signal) => {
        this.exitInfo ??= { code, signal };
        this.finish();
      });
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('error', (error) => this.onerror?.(error));
      child.stderr?.on('error', () => undefined);
      child.stdout?.on('data', (chunk: Buffer) => {
        try {
          this.readBuffer.append(chunk);
        } catch (error) {
          // A message over the limit: the stream cannot be resynchronised, so the connection ends.
          this.failure ??= `it sent a message larger than ${MAX_MESSAGE_BYTES / (1024 * 1024)} MB`;
          this.onerror?.(error as Error);
          void this.close();
          return;
        }
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = this.readBuffer.readMessage();
          } catch (error) {
            // A line that is not JSON-RPC (a server logging on stdout): reported, skipped.
            this.onerror?.(error as Error);
            continue;
          }
          if (message === null) break;
          this.onmessage?.(message);
        }
      });
      child.stderr?.setEncoding('utf8').on('data', (text: string) => {
        this.stderrTail = (this.stderrTail + text).slice(-STDERR_TAIL_CHARS);
      });
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed || !stdin.writable) return Promise.reject(new Error('Not connected: the server process is not running.'));
    return new Promise((resolve, reject) => {
      const ok = stdin.write(mcpSdk.sharedStdio().serializeMessage(message), (error) => {
        if (error) reject(error);
      });
      if (ok) resolve();
      else stdin.once('drain', () => resolve());
    });
  }

  /**
   * Ends stdin, waits briefly for the process to exit, then SIGTERM and at last SIGKILL to its
   * process group; stray processes left in the group are ended too. Resolves when it is gone.
   */
  close(): Promise<void> {
    this.closing ??= this.closeProcess();
    return this.closing;
  }

  private async closeProcess(): Promise<void> {
    const child = this.child;
    // Closing right after start(): wait until the process has spawned (or failed to).
    if (child && !this.spawned) await this.spawnSettled;
    if (!child || !this.spawned || this.closedPromise === undefined) {
      this.finish();
      return;
    }
    const gone = this.closedPromise;
    const running = () => this.exitInfo === undefined && child.exitCode === null && child.signalCode === null;
    try {
      child.stdin?.end();
    } catch {
      // already closed
    }
    if (running()) await Promise.race([gone, delay(GRACEFUL_EXIT_MS)]);
    if (running()) {
      this.signal(child, 'SIGTERM');
      await Promise.race([gone, delay(TERM_EXIT_MS)]);
    }
    if (running()) {
      this.signal(child, 'SIGKILL');
      await Promise.race([gone, delay(TERM_EXIT_MS)]);
    }
    // The leader is gone; anything it started in its group goes too.
    if (USE_PROCESS_GROUP) this.signal(child, 'SIGKILL');
    child.stdout?.destroy();
    child.stderr?.destroy();
    this.finish();
  }

  private signal(child: ChildProcess, signal: NodeJS.Signals): void {
    try {
      if (USE_PROCESS_GROUP && child.pid !== undefined) process.kill(-child.pid, signal);
      else child.kill(signal);
    } catch {
      // ESRCH: nothing left to signal.
    }
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    if (USE_PROCESS_GROUP && this.child?.pid !== undefined) unwatchProcessGroup(this.child.pid);
    this.readBuffer.clear();
    this.onclose?.();
  }
}
