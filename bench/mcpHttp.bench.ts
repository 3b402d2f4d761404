import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { benchDir, fmt, median, nowMs, table } from './util';

/** The repository root (bench runs from .bench-out/bench). */
const ROOT = nodePath.resolve(__dirname, '../..');
const CLI = nodePath.join(ROOT, 'dist', 'cli', 'main.js');

/** Starts `toolhost mcp serve --http 127.0.0.1:0 …` and resolves with the process and the port it printed. */
function startHttp(args: readonly string[], dir: string): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [CLI, 'mcp', 'serve', '--http', '127.0.0.1:0', '--cwd', dir, '--no-watch', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  return new Promise((resolve, reject) => {
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      const match = /listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(stderr);
      if (match) resolve({ child, port: Number(match[1]) });
    });
    child.once('exit', (code) => reject(new Error(`mcp serve --http exited (${code}): ${stderr}`)));
  });
}

async function timedCalls(client: Client, calls: number, args: Record<string, unknown>): Promise<number> {
  const t = nowMs();
  for (let i = 0; i < calls; i++) {
    const result = await client.callTool({ name: 'Read', arguments: args });
    if (result.isError) throw new Error(`Read failed: ${JSON.stringify(result.content)}`);
  }
  return ((nowMs() - t) * 1000) / calls;
}

/**
 * `tools/call Read` over Streamable HTTP on loopback (stateful session, and stateless by agent id)
 * against the same call over stdio, each to a real `toolhost mcp serve` process, in alternating
 * rounds of the same run; the ratio is the median of the per-round ratios.
 */
export async function mcpHttpBench(): Promise<void> {
  if (!fs.existsSync(CLI)) execFileSync(process.execPath, [nodePath.join(ROOT, 'scripts', 'build.js')], { cwd: ROOT, stdio: 'inherit' });
  const dir = fs.mkdtempSync(nodePath.join(benchDir(), 'mcp-http-'));
  fs.writeFileSync(nodePath.join(dir, 'file.txt'), Array.from({ length: 100 }, (_, i) => `line ${i + 1}: ${'text '.repeat(10)}`).join('\n') + '\n');
  const args = { path: 'file.txt', n_lines: 100 };
  const CALLS = 200;
  const ROUNDS = 7;

  const stdio = new Client({ name: 'bench', version: '1' });
  await stdio.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', 'serve', '--cwd', dir, '--no-watch'], stderr: 'ignore' }));
  const stateful = await startHttp([], dir);
  const stateless = await startHttp(['--stateless', '--data-dir', nodePath.join(dir, '.agents')], dir);
  const httpClient = new Client({ name: 'bench', version: '1' });
  await httpClient.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${stateful.port}/mcp`)));
  const statelessClient = new Client({ name: 'bench', version: '1' });
  await statelessClient.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${stateless.port}/mcp/agents/bench`)));

  const clients = { stdio, http: httpClient, stateless: statelessClient };
  for (const client of Object.values(clients)) await timedCalls(client, CALLS, args); // warm-up
  const samples = { stdio: [] as number[], http: [] as number[], stateless: [] as number[] };
  for (let r = 0; r < ROUNDS; r++) {
    samples.stdio.push(await timedCalls(stdio, CALLS, args));
    samples.http.push(await timedCalls(httpClient, CALLS, args));
    samples.stateless.push(await timedCalls(statelessClient, CALLS, args));
  }
  await Promise.allSettled(Object.values(clients).map((c) => c.close()));
  stateful.child.kill('SIGTERM');
  stateless.child.kill('SIGTERM');
  fs.rmSync(dir, { recursive: true, force: true });

  const ratio = (of: number[]) => median(of.map((t, i) => t / samples.stdio[i]!));
  console.log(`\n## mcp serve over Streamable HTTP vs stdio: tools/call Read (100 lines), ${CALLS} sequential calls per round, ${ROUNDS} alternating rounds`);
  console.log(
    table(
      ['transport', 'µs/call', 'ratio'],
      [
        ['stdio (baseline)', fmt(median(samples.stdio), 1), '1.00'],
        ['Streamable HTTP, stateful session (SSE answers)', fmt(median(samples.http), 1), fmt(ratio(samples.http))],
        ['Streamable HTTP, stateless /mcp/agents/<id> (JSON answers)', fmt(median(samples.stateless), 1), fmt(ratio(samples.stateless))],
      ],
    ),
  );
  console.log(`HTTP stateful / stdio: ${fmt(ratio(samples.http))}x; stateless / stdio: ${fmt(ratio(samples.stateless))}x (aim: at most 1.5x)`);
}
