import type { Readable, Writable } from 'node:stream';
import { Command } from 'commander';
import { errorMessage } from '../../base/errors';
import { McpAgentServer } from '../../features/mcp/serve/mcpAgentServer';
import { McpServeInteractions } from '../../features/mcp/serve/mcpServeInteractions';
import { McpStdioServerTransport } from '../../features/mcp/serve/stdioServerTransport';
import { watchConfigFile } from '../../services/config/configFileWatcher';
import { openAgentSession } from '../agentSession';
import { addWorkspaceOptions, type WorkspaceFlags } from '../commonOptions';
import { type CliIo, stopSignalOf, UsageError } from '../io';

interface ServeFlags extends WorkspaceFlags {
  readonly yes?: boolean;
  /** `--no-watch` sets it to false. */
  readonly watch?: boolean;
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
  if (!isStream(io.stdin) || !isStream(io.stdout)) throw new UsageError('mcp serve needs stdin and stdout streams.');
  const stdin = io.stdin as unknown as Readable;
  const stdout = io.stdout as unknown as Writable;
  const log = (message: string) => void io.stderr.write(`toolhost: ${message}\n`);

  const interactions = new McpServeInteractions({ approveAll: flags.yes === true });
  // Bad flags, a bad config or an unknown profile fail here, before anything is served (exit code 2).
  const session = openAgentSession(flags, io, { overrides: (container) => interactions.bindTo(container) });

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

export function mcpCommand(io: CliIo): Command {
  const mcp = new Command('mcp').description('Model Context Protocol: serve the agent\'s tools to MCP clients');
  const serveCommand = new Command('serve')
    .description(
      "serve the agent's active tools over stdio as an MCP server; every call goes through the executor " +
        '(policy, validation, approval, scheduling, output budget). Approvals are asked of the client by ' +
        'elicitation when it supports it; otherwise --yes or config approval rules decide, and the rest is denied.',
    )
    .option('--yes', 'approve every call that needs approval (approval.deny rules still apply)')
    .option('--no-watch', 'do not reload the config file when it changes');
  addWorkspaceOptions(serveCommand);
  serveCommand.action((flags: ServeFlags) => serve(flags, io));
  mcp.addCommand(serveCommand);
  return mcp;
}
