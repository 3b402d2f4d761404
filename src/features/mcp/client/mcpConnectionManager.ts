import { inject, injectable, preDestroy } from 'inversify';
import { packageVersion } from '../../../base/packageInfo';
import { Emitter } from '../../../base/event';
import { DisposableStore } from '../../../base/lifecycle';
import type { McpCallToolAnswer } from './callResult';
import type { McpServerConfig, McpServersConfig } from '../mcpConfig';
import type { JsonSchema } from '../../../tool/contract';
import { IToolArgsValidatorService } from '../../../services/argsValidation/toolArgsValidator';
import { IConfigService } from '../../../services/config/config';
import {
  type IMcpConnectionManager,
  IMcpClientOptions,
  type McpCallOptions,
  McpCallError,
  type McpClientOptions,
  type McpServerStatus,
  type McpWarning,
} from './mcpConnections';
import { type McpConnectionHost, McpServerConnection } from './mcpServerConnection';
import { mcpServersConfig } from '../mcpConfig';

const CLIENT_VERSION = packageVersion();

function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

@injectable()
export class McpConnectionManager implements IMcpConnectionManager {
  private readonly connections = new Map<string, McpServerConnection>();
  private readonly configs = new Map<string, string>();
  /** Connections removed from config whose stop has not finished (dispose waits for them). */
  private readonly stopping = new Set<Promise<void>>();
  private readonly changedEmitter = new Emitter<McpServerStatus>();
  private readonly warningEmitter = new Emitter<McpWarning>();
  private readonly disposables = new DisposableStore();
  private readonly host: McpConnectionHost;
  private sortedCache: readonly McpServerStatus[] | undefined;
  private disposed = false;
  private disposing: Promise<void> | undefined;
  readonly onDidChangeServer = this.changedEmitter.event;
  readonly onWarning = this.warningEmitter.event;

  constructor(
    @inject(IConfigService) config: IConfigService,
    @inject(IToolArgsValidatorService) validator: IToolArgsValidatorService,
    @inject(IMcpClientOptions) options: McpClientOptions,
  ) {
    this.host = {
      workingDirectory: options.workingDirectory,
      env: process.env,
      clientVersion: CLIENT_VERSION,
      checkSchema: (schema: JsonSchema) => validator.check(schema),
      changed: (connection) => {
        if (this.connections.get(connection.name) !== connection) return;
        this.sortedCache = undefined;
        this.changedEmitter.fire(connection.status);
      },
      warn: (warning) => {
        if (!this.disposed) this.warningEmitter.fire(warning);
      },
    };
    this.sync(config.section(mcpServersConfig));
    this.disposables.add(config.onDidChange(() => this.sync(config.section(mcpServersConfig))));
  }

  get servers(): readonly McpServerStatus[] {
    this.sortedCache ??= [...this.connections.keys()].sort(byName).map((name) => this.connections.get(name)!.status);
    return this.sortedCache;
  }

  server(name: string): McpServerStatus | undefined {
    return this.connections.get(name)?.status;
  }

  /** @internal The pid of a stdio server's process (tests check it is gone after dispose). */
  pidOf(name: string): number | undefined {
    return this.connections.get(name)?.pid;
  }

  /** Starts servers that were added, stops removed ones, restarts changed ones. */
  private sync(servers: McpServersConfig): void {
    if (this.disposed) return;
    for (const name of [...this.connections.keys()]) {
      const next = servers[name];
      if (next === undefined || JSON.stringify(next) !== this.configs.get(name)) this.remove(name);
    }
    for (const name of Object.keys(servers).sort(byName)) {
      if (!this.connections.has(name)) this.add(name, servers[name]!);
    }
  }

  private add(name: string, config: McpServerConfig): void {
    const connection = new McpServerConnection(name, config, this.host);
    this.connections.set(name, connection);
    this.configs.set(name, JSON.stringify(config));
    this.sortedCache = undefined;
    if (config.enabled) connection.start();
    else this.changedEmitter.fire(connection.status);
  }

  private remove(name: string): void {
    const connection = this.connections.get(name)!;
    // Stopping announces `closed` (tools leave every agent) before the connection is forgotten.
    const stopped = connection.stop().finally(() => this.stopping.delete(stopped));
    this.stopping.add(stopped);
    this.connections.delete(name);
    this.configs.delete(name);
    this.sortedCache = undefined;
  }

  async callTool(server: string, tool: string, args: Readonly<Record<string, unknown>>, options?: McpCallOptions): Promise<McpCallToolAnswer> {
    const connection = this.connections.get(server);
    if (!connection) throw new McpCallError('not_ready', `There is no MCP server "${server}" in the configuration.`);
    return connection.callTool(tool, args, options);
  }

  async restart(name: string): Promise<void> {
    const connection = this.connections.get(name);
    if (!connection) throw new Error(`There is no MCP server "${name}" in the configuration.`);
    if (this.disposed || !connection.config.enabled) return;
    await connection.stop();
    if (this.connections.get(name) === connection && !this.disposed) connection.start();
  }

  async whenSettled(signal?: AbortSignal): Promise<void> {
    const pending = () => [...this.connections.values()].filter((c) => c.state === 'connecting');
    while (pending().length > 0 && !signal?.aborted && !this.disposed) {
      const aborted = new Promise<void>((resolve) => {
        if (!signal) return;
        if (signal.aborted) resolve();
        else signal.addEventListener('abort', () => resolve(), { once: true });
      });
      await Promise.race([Promise.all(pending().map((c) => c.settled())), aborted]);
    }
  }

  @preDestroy()
  dispose(): Promise<void> {
    this.disposing ??= (async () => {
      this.disposed = true;
      this.disposables.dispose();
      const connections = [...this.connections.values()];
      await Promise.all([...connections.map((c) => c.stop()), ...this.stopping]);
      this.connections.clear();
      this.sortedCache = undefined;
      this.changedEmitter.dispose();
      this.warningEmitter.dispose();
    })();
    return this.disposing;
  }
}
