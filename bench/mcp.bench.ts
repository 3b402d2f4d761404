import * as nodePath from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createApp } from '../src/scopes/appScope';
import { ToolArgsValidatorService } from '../src/services/argsValidation/toolArgsValidatorService';
import type { ToolCall } from '../src/services/executor/toolExecutor';
import { IMcpConnectionManager } from '../src/features/mcp/client/mcpConnections';
import { createMcpFeature } from '../src/features/mcp/mcpFeature';
import { fmt, median, nowMs, table } from './util';

// bench/ compiles to .bench-out/bench/: the fixture stays in the source tree.
const FIXTURE = nodePath.resolve(__dirname, '../../tests/fixtures/mcp/fixtureServer.cjs');
const TOOL_COUNT = 1_000;

function fixtureArgs(options: Record<string, unknown>): string[] {
  return [FIXTURE, JSON.stringify(options)];
}

/** The SDK alone: spawn, initialize and list the tools; then, apart, what Ajv takes to compile their schemas. */
async function rawListing(): Promise<{ connectMs: number; listMs: number; compileMs: number; count: number }> {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  const start = nowMs();
  await client.connect(new StdioClientTransport({ command: process.execPath, args: fixtureArgs({ manyTools: TOOL_COUNT, onlyMany: true }), stderr: 'ignore' }));
  const connected = nowMs();
  const { tools } = await client.listTools();
  const listed = nowMs();
  await client.close();
  const validator = new ToolArgsValidatorService();
  const schemas = tools.map((tool) => ({ ...tool.inputSchema }));
  const t = nowMs();
  for (const schema of schemas) validator.check(schema);
  const compileMs = nowMs() - t;
  return { connectMs: connected - start, listMs: listed - connected, compileMs, count: tools.length };
}

/** toolhost: from creating the App to 1,000 tools in the agent's registry; then a second agent. */
async function toolhostListing(): Promise<{ totalMs: number; secondAgentMs: number; count: number }> {
  const start = nowMs();
  const app = createApp({
    features: [createMcpFeature()],
    config: { mcpServers: { bench: { command: process.execPath, args: fixtureArgs({ manyTools: TOOL_COUNT, onlyMany: true }) } } },
  });
  const agent = app.createAgent({ cwd: process.cwd() });
  // The last of the server's tools is registered last (O(1) per registry event).
  const last = `mcp__bench__tool_${String(TOOL_COUNT - 1).padStart(4, '0')}`;
  await new Promise<void>((resolve) => {
    const check = () => {
      if (agent.registry.has(last)) resolve();
    };
    agent.registry.onDidChange(check);
    check();
  });
  if (agent.registry.list().length !== TOOL_COUNT) throw new Error(`expected ${TOOL_COUNT} tools, got ${agent.registry.list().length}`);
  const totalMs = nowMs() - start;
  const t = nowMs();
  const second = app.createAgent({ cwd: process.cwd() });
  const secondAgentMs = nowMs() - t;
  const count = second.registry.list().length;
  await app.dispose();
  return { totalMs, secondAgentMs, count };
}

async function registration(): Promise<string[][]> {
  // Warm up both paths (module loading, JIT).
  await rawListing();
  await toolhostListing();
  const raw: Array<{ connectMs: number; listMs: number; compileMs: number }> = [];
  const ours: Array<{ totalMs: number; secondAgentMs: number }> = [];
  for (let round = 0; round < 5; round++) {
    raw.push(await rawListing());
    ours.push(await toolhostListing());
  }
  const rawConnect = median(raw.map((r) => r.connectMs));
  const rawList = median(raw.map((r) => r.listMs));
  const rawTotal = median(raw.map((r) => r.connectMs + r.listMs));
  const oursTotal = median(ours.map((r) => r.totalMs));
  // Spawning and initialize cost the same with or without toolhost (the same SDK client and server).
  const fromConnection = oursTotal - rawConnect;
  return [
    ['SDK client alone: spawn + initialize', fmt(rawConnect, 1), '-'],
    [`SDK client alone: tools/list (${TOOL_COUNT} tools)`, fmt(rawList, 1), '1.00x'],
    [`toolhost: connection → ${TOOL_COUNT} tools active (total − spawn + initialize)`, fmt(fromConnection, 1), `${fmt(fromConnection / rawList)}x`],
    [`  of which Ajv compiling the ${TOOL_COUNT} input schemas (measured apart)`, fmt(median(raw.map((r) => r.compileMs)), 1), '-'],
    ['SDK client alone: spawn → tools listed', fmt(rawTotal, 1), '1.00x'],
    [`toolhost: App created → ${TOOL_COUNT} tools active in the agent`, fmt(oursTotal, 1), `${fmt(oursTotal / rawTotal)}x`],
    [`toolhost: a second agent registers the ${TOOL_COUNT} tools`, fmt(median(ours.map((r) => r.secondAgentMs)), 2), '-'],
  ];
}

async function callOverhead(): Promise<string[][]> {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: fixtureArgs({}), stderr: 'ignore' }));
  const app = createApp({
    features: [createMcpFeature()],
    config: { approval: { allow: ['mcp__*'] }, mcpServers: { fx: { command: process.execPath, args: fixtureArgs({}) } } },
  });
  const agent = app.createAgent({ cwd: process.cwd() });
  await app.get(IMcpConnectionManager).whenSettled();
  const executor = agent.executor;
  const n = 200;
  const direct = async () => {
    for (let i = 0; i < n; i++) await client.callTool({ name: 'echo', arguments: { text: `m${i}` } });
  };
  const manager = app.get(IMcpConnectionManager);
  const viaConnection = async () => {
    for (let i = 0; i < n; i++) await manager.callTool('fx', 'echo', { text: `m${i}` });
  };
  const viaExecutor = async () => {
    for (let i = 0; i < n; i++) await executor.execute([{ id: `c${i}`, name: 'mcp__fx__echo', arguments: `{"text":"m${i}"}` }]);
  };
  const batch: ToolCall[] = Array.from({ length: n }, (_, i) => ({ id: `b${i}`, name: 'mcp__fx__echo', arguments: `{"text":"m${i}"}` }));
  const directConcurrent = async () => {
    await Promise.all(batch.map((_, i) => client.callTool({ name: 'echo', arguments: { text: `m${i}` } })));
  };
  const executorBatch = async () => {
    await executor.execute(batch);
  };
  for (let i = 0; i < 3; i++) {
    await direct();
    await viaConnection();
    await viaExecutor();
    await directConcurrent();
    await executorBatch();
  }
  const a: number[] = [];
  const b: number[] = [];
  const c: number[] = [];
  const d: number[] = [];
  const e: number[] = [];
  for (let round = 0; round < 9; round++) {
    let t = nowMs();
    await direct();
    a.push(((nowMs() - t) * 1000) / n);
    t = nowMs();
    await viaConnection();
    e.push(((nowMs() - t) * 1000) / n);
    t = nowMs();
    await viaExecutor();
    b.push(((nowMs() - t) * 1000) / n);
    t = nowMs();
    await directConcurrent();
    c.push(((nowMs() - t) * 1000) / n);
    t = nowMs();
    await executorBatch();
    d.push(((nowMs() - t) * 1000) / n);
  }
  await client.close();
  await app.dispose();
  const directUs = median(a);
  const concurrentUs = median(c);
  return [
    ['SDK client, one call at a time', fmt(directUs), '-', '1.00x'],
    ["toolhost's connection (IMcpConnectionManager.callTool), no executor", fmt(median(e)), fmt(median(e) - directUs), `${fmt(median(e) / directUs)}x`],
    ['executor, one call per batch', fmt(median(b)), fmt(median(b) - directUs), `${fmt(median(b) / directUs)}x`],
    [`SDK client, ${n} calls at once (Promise.all)`, fmt(concurrentUs), '-', '1.00x'],
    [`executor, one batch of ${n} read-only calls`, fmt(median(d)), fmt(median(d) - concurrentUs), `${fmt(median(d) / concurrentUs)}x`],
  ];
}

export async function mcpBench(): Promise<void> {
  console.log(`\n## MCP: registering ${TOOL_COUNT} tools from one stdio server (ms, median of 5; the same fixture server)`);
  console.log(table(['case', 'ms', 'ratio'], await registration()));
  console.log('toolhost compiles each input schema with Ajv once per App (the executor reuses the validators; an uncompilable schema is left out).');
  console.log('\n## MCP: call overhead of an MCP tool (echo on the fixture server), µs per call, median of 9 rounds of 200');
  console.log(table(['case', 'µs/call', 'overhead µs', 'ratio'], await callOverhead()));
}
