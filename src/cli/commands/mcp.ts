import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { Command } from 'commander';
import type { Container } from 'inversify';
import { errorMessage } from '../../base/errors';
import { McpAgentServer } from '../../features/mcp/serve/mcpAgentServer';
import { McpServeInteractions } from '../../features/mcp/serve/mcpServeInteractions';
import { McpStdioServerTransport } from '../../features/mcp/serve/stdioServerTransport';
import { normalizeOrigin, parseHostPort } from '../../features/mcp/serve/http/httpGuards';
import { McpHttpServeError, McpHttpServer } from '../../features/mcp/serve/http/mcpHttpServer';
import { watchConfigFile } from '../../services/config/configFileWatcher';
import { openAgentSession, openAppSession, warnAboutInactivePatterns, writeWarning } from '../agentSession';
import { AGENT_ID_OPTION_HELP, addWorkspaceOptions, parseAgentIdFlag, type WorkspaceFlags } from '../commonOptions';
import { type CliIo, stopSignalOf, UsageError } from '../io';

interface ServeFlags extends WorkspaceFlags {
  readonly yes?: boolean;
  /** `--no-watch` sets it to false. */
  readonly watch?: boolean;
  readonly http?: string;
  readonly stateless?: boolean;
  readonly dataDir?: string;
  readonly sessionIdle?: string;
  readonly maxAgents?: string;
  readonly tokenFile?: string;
  readonly allowOrigin?: readonly string[];
  readonly maxBody?: string;
  readonly approvalSecretFile?: string;
  readonly instanceId?: string;
  readonly agentId?: string;
}

/** Flags that only mean something with --http, as commander names them and as the user types them. */
const HTTP_ONLY_FLAGS: ReadonlyArray<[keyof ServeFlags, string]> = [
  ['stateless', '--stateless'],
  ['dataDir', '--data-dir'],
  ['sessionIdle', '--session-idle'],
  ['maxAgents', '--max-agents'],
  ['tokenFile', '--token-file'],
  ['allowOrigin', '--allow-origin'],
  ['maxBody', '--max-body'],
  ['approvalSecretFile', '--approval-secret-file'],
  ['instanceId', '--instance-id'],
];

const DURATION_UNITS_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `500ms`, `90s`, `30m`, `2h`. */
function parseDuration(flag: string, text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(text.trim());
  const ms = match ? Number(match[1]) * DURATION_UNITS_MS[match[2]!]! : NaN;
  if (!Number.isFinite(ms) || ms <= 0) throw new UsageError(`${flag}: "${text}" is not a duration; give a number with ms, s, m or h, e.g. 30m.`);
  return Math.round(ms);
}

function parsePositiveInteger(flag: string, text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < 1) throw new UsageError(`${flag}: "${text}" is not a positive integer.`);
  return value;
}

/** A secret from a file (trimmed; it must not be empty) or, without the flag, from an environment variable. */
function readSecret(io: CliIo, flag: string, file: string | undefined, envName: string): string | undefined {
  if (file !== undefined) {
    let text: string;
    try {
      text = fs.readFileSync(nodePath.resolve(io.cwd, file), 'utf8').trim();
    } catch (error) {
      throw new UsageError(`${flag}: cannot read "${file}": ${errorMessage(error)}.`);
    }
    if (text === '') throw new UsageError(`${flag}: "${file}" is empty; put the secret in it.`);
    return text;
  }
  const fromEnv = io.env[envName]?.trim();
  return fromEnv ? fromEnv : undefined;
}

function isStream(value: unknown): value is NodeJS.EventEmitter {
  return typeof value === 'object' && value !== null && typeof (value as NodeJS.EventEmitter).once === 'function';
}

/**
 * While serving on the real process: stray console output goes to stderr (stdout carries only the
 * protocol), and an error that escapes somewhere is logged instead of ending the server.
 */
function guardProcess(log: (message: string) => void): () => void {
  const saved = { log: console.log, info: console.info, debug: console.debug };
  const toStderr = (...args: unknown[]) => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  const onException = (error: unknown) => log(`unexpected error (the server keeps running): ${error instanceof Error && error.stack ? error.stack : errorMessage(error)}`);
  process.on('uncaughtException', onException);
  process.on('unhandledRejection', onException);
  return () => {
    Object.assign(console, saved);
    process.off('uncaughtException', onException);
    process.off('unhandledRejection', onException);
  };
}

async function serve(flags: ServeFlags, io: CliIo): Promise<void> {
  if (flags.http !== undefined) return serveHttp(flags, flags.http, io);
  const httpOnly = HTTP_ONLY_FLAGS.find(([key]) => flags[key] !== undefined);
  if (httpOnly) throw new UsageError(`${httpOnly[1]} needs --http HOST:PORT: it configures serving over HTTP.`);
  if (!isStream(io.stdin) || !isStream(io.stdout)) throw new UsageError('mcp serve needs stdin and stdout streams.');
  const stdin = io.stdin as unknown as Readable;
  const stdout = io.stdout as unknown as Writable;
  const log = (message: string) => void io.stderr.write(`toolhost: ${message}\n`);

  const agentId = parseAgentIdFlag(flags.agentId);
  const interactions = new McpServeInteractions({ approveAll: flags.yes === true });
  // Bad flags, a bad config or an unknown profile fail here, before anything is served (exit code 2).
  const session = openAgentSession(flags, io, { ...(agentId !== undefined ? { agentId } : {}), overrides: (container) => interactions.bindTo(container) });

  if (io.stdin.isTTY) log('waiting for an MCP client on stdin: start "toolhost mcp serve" from an MCP client\'s configuration (see docs/mcp-serve.md); Ctrl-C stops it.');
  const realProcess = io.stdout === process.stdout;
  const unguard = realProcess ? guardProcess(log) : () => undefined;
  const server = new McpAgentServer(session.agent, { interactions, log });
  const watcher =
    flags.watch === false
      ? undefined
      : watchConfigFile({
          cwd: session.workspace.cwd,
          explicitFile: flags.config !== undefined ? session.workspace.configFile : undefined,
          config: session.app.config,
          log,
        });

  let stop!: (why: string) => void;
  const stopped = new Promise<string>((resolve) => (stop = resolve));
  const onEnd = () => stop('the client closed the connection');
  const onStdoutError = (error: Error) => stop(`stdout failed (${errorMessage(error)})`);
  stdin.once('end', onEnd);
  stdin.once('close', onEnd);
  stdout.on('error', onStdoutError);
  // SIGINT, SIGTERM and SIGHUP (processIo); the exit code is then 128 + the signal's number.
  const onInterrupt = () => stop(stopSignalOf(io.interrupt) ?? 'interrupted');
  if (io.interrupt?.aborted) onInterrupt();
  io.interrupt?.addEventListener('abort', onInterrupt, { once: true });
  void server.closed.then(() => stop('the connection closed'));

  try {
    await server.connect(new McpStdioServerTransport(stdin, stdout));
    const why = await stopped;
    log(`shutting down: ${why}`);
  } finally {
    await server.close();
    watcher?.dispose();
    await session.dispose();
    stdin.off('end', onEnd);
    stdin.off('close', onEnd);
    stdout.off('error', onStdoutError);
    io.interrupt?.removeEventListener('abort', onInterrupt);
    unguard();
    // Nothing more will be read; a paused stdin must not keep the process alive.
    if (realProcess) stdin.destroy();
  }
}

/** `mcp serve --http`: MCP Streamable HTTP until a signal stops it. */
async function serveHttp(flags: ServeFlags, address: string, io: CliIo): Promise<void> {
  const log = (message: string) => void io.stderr.write(`toolhost: ${message}\n`);
  let bind: { host: string; port: number };
  try {
    bind = parseHostPort(address);
  } catch (error) {
    throw new UsageError(`--http: ${errorMessage(error)}`);
  }
  if (!flags.stateless && flags.maxAgents !== undefined) throw new UsageError('--max-agents needs --stateless: stateful serving keeps one agent per session.');
  if (!flags.stateless && flags.dataDir !== undefined) throw new UsageError('--data-dir needs --stateless: stateful sessions keep their state for as long as they last.');
  if (flags.stateless && flags.sessionIdle !== undefined) throw new UsageError('--session-idle needs stateful serving (without --stateless): stateless serving has no sessions.');
  if (flags.stateless && flags.agentId !== undefined) {
    throw new UsageError('--agent-id is for stdio and stateful --http; with --stateless the client names each agent in the path (/mcp/agents/<agentId>).');
  }
  const agentId = parseAgentIdFlag(flags.agentId);
  if (flags.stateless && flags.dataDir === undefined) {
    throw new UsageError('--stateless needs --data-dir <dir>: the folder that holds each agent\'s state by agent id; give every instance the same one.');
  }
  const token = readSecret(io, '--token-file', flags.tokenFile, 'TOOLHOST_MCP_TOKEN');
  const secret = readSecret(io, '--approval-secret-file', flags.approvalSecretFile, 'TOOLHOST_MCP_APPROVAL_SECRET');
  if (secret !== undefined && !flags.stateless) log('the approval secret is used only with --stateless; stateful sessions ask approvals by elicitation.');
  for (const origin of flags.allowOrigin ?? []) {
    if (!normalizeOrigin(origin)) throw new UsageError(`--allow-origin: "${origin}" is not an origin; give scheme, host and port, e.g. https://app.example.com.`);
  }
  const sessionIdleMs = flags.sessionIdle !== undefined ? parseDuration('--session-idle', flags.sessionIdle) : undefined;
  const maxAgents = flags.maxAgents !== undefined ? parsePositiveInteger('--max-agents', flags.maxAgents) : undefined;
  const maxBodyBytes = flags.maxBody !== undefined ? parsePositiveInteger('--max-body', flags.maxBody) : undefined;
  const dataRoot = flags.dataDir !== undefined ? nodePath.resolve(io.cwd, flags.dataDir) : undefined;
  if (dataRoot !== undefined) fs.mkdirSync(dataRoot, { recursive: true, mode: 0o700 });

  // Bad flags, a bad config or an unknown profile fail here, before anything is served (exit code 2).
  const session = openAppSession(flags, io);
  const createAgent = ({ id, overrides }: { readonly id?: string; readonly overrides: (container: Container) => void }) => {
    if (id !== undefined) return session.createAgent({ id, dataDir: nodePath.join(dataRoot!, id), overrides });
    if (agentId === undefined) return session.createAgent({ overrides });
    // Stateful with --agent-id: every session's agent has that id, so one session at a time.
    if (session.app.agents.some((a) => a.id === agentId)) {
      throw new Error(`agent ${agentId} (--agent-id) is in use by another session; end that session first, or serve without --agent-id (a fresh id per session).`);
    }
    return session.createAgent({ id: agentId, overrides });
  };
  try {
    // The profile is checked once now, so a bad one is a usage error rather than a failing first session.
    await session.createAgent({ id: 'mcp-serve-check' }).dispose();
  } catch (error) {
    await session.dispose();
    throw error;
  }
  warnAboutInactivePatterns(session.app, flags.profile, (message) => writeWarning(io, message));
  const watcher =
    flags.watch === false
      ? undefined
      : watchConfigFile({ cwd: session.workspace.cwd, explicitFile: flags.config !== undefined ? session.workspace.configFile : undefined, config: session.app.config, log });
  let server: McpHttpServer;
  try {
    server = await McpHttpServer.listen({
      ...bind,
      stateless: flags.stateless === true,
      createAgent,
      ...(token !== undefined ? { token } : {}),
      ...(flags.allowOrigin ? { allowedOrigins: flags.allowOrigin } : {}),
      ...(maxBodyBytes !== undefined ? { maxBodyBytes } : {}),
      ...(sessionIdleMs !== undefined ? { sessionIdleMs } : {}),
      ...(maxAgents !== undefined ? { maxAgents } : {}),
      approveAll: flags.yes === true,
      ...(secret !== undefined ? { approvalSecret: Buffer.from(secret, 'utf8') } : {}),
      ...(flags.instanceId !== undefined ? { instanceId: flags.instanceId } : {}),
      log,
    });
  } catch (error) {
    watcher?.dispose();
    await session.dispose();
    if (error instanceof McpHttpServeError) throw new UsageError(`--http: ${error.message}`);
    throw new UsageError(`--http: cannot listen on ${address}: ${errorMessage(error)}.`);
  }
  const unguard = io.stdout === process.stdout ? guardProcess(log) : () => undefined;
  const { url } = server.address;
  const approvals = flags.yes ? 'approves every call (--yes)' : flags.stateless ? (secret !== undefined ? 'takes approvals as signed tokens' : 'cannot approve calls (no --approval-secret-file)') : 'asks approvals by elicitation';
  log(`listening on ${url} (${flags.stateless ? 'stateless' : 'stateful'}, instance ${server.instanceId}${token !== undefined ? ', bearer token required' : ''}); it ${approvals}`);
  try {
    const why = await new Promise<string>((resolve) => {
      if (io.interrupt?.aborted) resolve(stopSignalOf(io.interrupt) ?? 'interrupted');
      io.interrupt?.addEventListener('abort', () => resolve(stopSignalOf(io.interrupt) ?? 'interrupted'), { once: true });
    });
    log(`shutting down: ${why}`);
  } finally {
    await server.close();
    watcher?.dispose();
    await session.dispose();
    unguard();
  }
}

export function mcpCommand(io: CliIo): Command {
  const mcp = new Command('mcp').description('Model Context Protocol: serve the agent\'s tools to MCP clients');
  const serveCommand = new Command('serve')
    .description(
      "serve the agent's active tools over stdio (or --http) as an MCP server; every call goes through the executor " +
        '(policy, validation, approval, scheduling, output budget). Approvals are asked of the client by ' +
        'elicitation when it supports it; otherwise --yes or config approval rules decide, and the rest is denied.',
    )
    .option('--yes', 'approve every call that needs approval (approval.deny rules still apply)')
    .option('--no-watch', 'do not reload the config file when it changes')
    .option('--http <host:port>', 'serve over MCP Streamable HTTP instead of stdio (port 0: any free port; the address is printed on stderr)')
    .option('--stateless', 'with --http: POST /mcp/agents/<agentId>, any instance answers; approvals as signed tokens (needs --data-dir)')
    .option('--data-dir <dir>', 'with --stateless: the folder of the agents\' state by agent id, shared by every instance')
    .option('--session-idle <duration>', 'with --http: close a session idle this long and dispose its agent (default 30m)')
    .option('--max-agents <n>', 'with --stateless: agents kept in memory; the least recently used is disposed past it (default 100)')
    .option('--token-file <file>', 'with --http: require "Authorization: Bearer <token>" (or TOOLHOST_MCP_TOKEN); required off loopback')
    .option('--allow-origin <origin>', 'with --http: a browser Origin to accept besides the server\'s own (repeatable)', (value: string, previous: string[] = []) => [...previous, value])
    .option('--max-body <bytes>', 'with --http: the largest request body accepted (default 4194304)')
    .option('--approval-secret-file <file>', 'with --stateless: the secret approval tokens are signed with (or TOOLHOST_MCP_APPROVAL_SECRET)')
    .option('--instance-id <id>', 'with --http: the name in the x-toolhost-instance header and /healthz (default <hostname>-<pid>)')
    .option('--agent-id <id>', `over stdio or stateful --http (one session at a time): ${AGENT_ID_OPTION_HELP}`);
  addWorkspaceOptions(serveCommand);
  serveCommand.action((flags: ServeFlags) => serve(flags, io));
  mcp.addCommand(serveCommand);
  return mcp;
}
