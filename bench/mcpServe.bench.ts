import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpAgentServer } from '../src/features/mcp/serve/mcpAgentServer';
import { McpServeInteractions } from '../src/features/mcp/serve/mcpServeInteractions';
import { createApp } from '../src/scopes/appScope';
import { benchDir, buildCli, CLI, fmt, median, nowMs, table } from './util';

/** The repository root (bench runs from .bench-out/bench). */

function ensureBuiltCli(): void {
  buildCli();
}

/** Per-call microseconds over `rounds` rounds of `calls` sequential calls (median of the rounds). */
async function perCall(calls: number, rounds: number, once: (i: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < calls; i++) await once(i); // warm-up
  const samples: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t = nowMs();
    for (let i = 0; i < calls; i++) await once(i);
    samples.push(((nowMs() - t) * 1000) / calls);
  }
  return median(samples);
}

/** Calls per second with `inFlight` requests outstanding at any time. */
async function throughput(total: number, inFlight: number, once: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const t = nowMs();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < total) await once(next++);
    }),
  );
  return total / ((nowMs() - t) / 1000);
}

/**
 * `toolhost mcp serve`: the round trip of `tools/call Read` through the SDK client, over stdio to the
 * real CLI process and over an in-memory transport, against the same call through the executor
 * in-process, measured in the same run.
 */
export async function mcpServeBench(): Promise<void> {
  ensureBuiltCli();
  const dir = fs.mkdtempSync(nodePath.join(benchDir(), 'mcp-'));
  fs.writeFileSync(nodePath.join(dir, 'file.txt'), Array.from({ length: 100 }, (_, i) => `line ${i + 1}: ${'text '.repeat(10)}`).join('\n') + '\n');
  const args = { path: 'file.txt', n_lines: 100 };
  const CALLS = 200;
  const ROUNDS = 7;

  // Baseline: the executor in-process, with a signal per call as the server has (one per request).
  const app = createApp();
  const agent = app.createAgent({ cwd: dir, dataDir: nodePath.join(dir, '.data') });
  const executor = agent.executor;
  const direct = await perCall(CALLS, ROUNDS, (i) =>
    executor.execute([{ id: `c${i}`, name: 'Read', arguments: args }], { signal: new AbortController().signal }),
  );

  // McpAgentServer and the SDK client in one process (protocol and mapping cost, no pipes).
  const interactions = new McpServeInteractions();
  const app2 = createApp();
  const agent2 = app2.createAgent({ cwd: dir, dataDir: nodePath.join(dir, '.data2'), overrides: (c) => interactions.bindTo(c) });
  const server = new McpAgentServer(agent2, { interactions });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const memClient = new Client({ name: 'bench', version: '1' });
  await memClient.connect(clientSide);
  const inMemory = await perCall(CALLS, ROUNDS, () => memClient.callTool({ name: 'Read', arguments: args }));

  // The real CLI process over stdio.
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', 'serve', '--cwd', dir, '--no-watch'], stderr: 'ignore' });
  const client = new Client({ name: 'bench', version: '1' });
  const startT = nowMs();
  await client.connect(transport);
  await client.listTools();
  const startupMs = nowMs() - startT;
  const stdio = await perCall(CALLS, ROUNDS, () => client.callTool({ name: 'Read', arguments: args }));
  const stdioParallel = await throughput(2000, 16, () => client.callTool({ name: 'Read', arguments: args }));
  const directParallel = await throughput(2000, 16, (i) =>
    executor.execute([{ id: `p${i}`, name: 'Read', arguments: args }], { signal: new AbortController().signal }),
  );

  await client.close();
  await memClient.close();
  await server.close();
  await app.dispose();
  await app2.dispose();
  fs.rmSync(dir, { recursive: true, force: true });

  console.log('\n## mcp serve: tools/call Read (100 lines) round trip vs the executor in-process');
  console.log(
    table(
      ['path', 'µs/call', 'ratio'],
      [
        ['executor.execute in-process (baseline)', fmt(direct, 1), '1.00'],
        ['SDK client → McpAgentServer, in-memory transport', fmt(inMemory, 1), fmt(inMemory / direct)],
        ['SDK client → toolhost mcp serve over stdio', fmt(stdio, 1), fmt(stdio / direct)],
      ],
    ),
  );
  console.log(
    table(
      ['16 calls in flight', 'calls/s', 'ratio'],
      [
        ['executor.execute in-process (baseline)', fmt(directParallel, 0), '1.00'],
        ['toolhost mcp serve over stdio', fmt(stdioParallel, 0), fmt(stdioParallel / directParallel)],
      ],
    ),
  );
  console.log(`server start to first tools/list: ${fmt(startupMs, 0)} ms`);
  await againstFilesystemServer();
}

const FILESYSTEM_SERVER = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');

/** One whole session: start the server, initialize, tools/list, `reads` sequential reads, close. */
async function session(command: readonly string[], dir: string, read: { name: string; arguments: Record<string, unknown> }, reads: number): Promise<number> {
  const start = nowMs();
  const transport = new StdioClientTransport({ command: process.execPath, args: [...command], cwd: dir, stderr: 'ignore' });
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(transport);
  await client.listTools();
  for (let i = 0; i < reads; i++) {
    const result = await client.callTool(read);
    if (result.isError) throw new Error(`${read.name} failed: ${JSON.stringify(result.content)}`);
  }
  await client.close();
  return nowMs() - start;
}

/**
 * `toolhost mcp serve` against the official filesystem server (@modelcontextprotocol/server-filesystem) doing
 * the same: start, list, 100 reads of one 100-line file, in alternating pairs.
 */
async function againstFilesystemServer(): Promise<void> {
  const dir = fs.mkdtempSync(nodePath.join(benchDir(), 'mcp-fs-'));
  const file = nodePath.join(dir, 'file.txt');
  fs.writeFileSync(file, Array.from({ length: 100 }, (_, i) => `line ${i + 1}: ${'text '.repeat(10)}`).join('\n') + '\n');
  const READS = 100;
  const PAIRS = 7;
  const ours = () => session([CLI, 'mcp', 'serve', '--cwd', dir, '--no-watch'], dir, { name: 'Read', arguments: { path: 'file.txt' } }, READS);
  const theirs = () => session([FILESYSTEM_SERVER, dir], dir, { name: 'read_text_file', arguments: { path: file } }, READS);
  await ours();
  await theirs();
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < PAIRS; i++) {
    a.push(await ours());
    b.push(await theirs());
  }
  fs.rmSync(dir, { recursive: true, force: true });
  const ratio = median(a.map((t, i) => t / b[i]!));
  console.log(`\n## mcp serve vs the official filesystem server: start, tools/list, ${READS} reads of a 100-line file, close (median of ${PAIRS} alternating pairs)`);
  console.log(
    table(
      ['server', 'ms', 'ratio'],
      [
        ['@modelcontextprotocol/server-filesystem (baseline)', fmt(median(b), 0), '1.00'],
        ['toolhost mcp serve', fmt(median(a), 0), `${fmt(ratio)}x`],
      ],
    ),
  );
  console.log(`toolhost mcp serve / filesystem server: ${fmt(ratio)}x (aim: within 1.2x)`);
}
