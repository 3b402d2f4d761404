import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as nodePath from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { benchDir, buildCli, CLI, fmt, median, nowMs, table } from './util';

/** The repository root (bench runs from .bench-out/bench). */
/** Linux clock ticks per second, the unit of /proc/<pid>/stat CPU times. */
const CLOCK_TICKS = 100;

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

/** CPU time (user + system) a process has used so far, µs; undefined where /proc is missing. */
function processCpuMicros(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

function rssMb(pid: number | undefined): number | undefined {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** One way to call `tools/call Read` on one server process. */
interface Caller {
  readonly label: string;
  readonly serverPid: number | undefined;
  call(): Promise<void>;
}

function sdkCaller(label: string, client: Client, serverPid: number | undefined, args: Record<string, unknown>): Caller {
  return {
    label,
    serverPid,
    call: async () => {
      const result = await client.callTool({ name: 'Read', arguments: args });
      if (result.isError) throw new Error(`Read failed: ${JSON.stringify(result.content)}`);
    },
  };
}

/**
 * An MCP client as light as the SDK's stdio one: JSON-RPC over keep-alive `node:http` POSTs, the
 * result checked with the SDK's CallToolResultSchema (as Client.callTool does), no fetch.
 */
async function keepAliveCaller(label: string, url: string, serverPid: number | undefined, args: Record<string, unknown>): Promise<Caller & { close(): void }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  let nextId = 1;
  const post = (message: Record<string, unknown>) =>
    new Promise<{ status: number; session?: string; body: string }>((resolve, reject) => {
      const text = JSON.stringify({ jsonrpc: '2.0', ...message });
      const req = http.request(url, { method: 'POST', agent, headers: { ...headers, 'content-length': String(Buffer.byteLength(text)) } }, (res) => {
        if (!(res.headers['content-type'] ?? 'application/json').startsWith('application/json')) reject(new Error(`expected a JSON answer, got ${res.headers['content-type']}`));
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode!, session: res.headers['mcp-session-id'] as string | undefined, body: Buffer.concat(chunks).toString('utf8') }));
      });
      req.on('error', reject);
      req.end(text);
    });
  const init = await post({ id: nextId++, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'bench', version: '1' } } });
  if (init.status !== 200) throw new Error(`initialize: HTTP ${init.status} ${init.body}`);
  if (init.session) headers['mcp-session-id'] = init.session;
  headers['mcp-protocol-version'] = LATEST_PROTOCOL_VERSION;
  await post({ method: 'notifications/initialized' });
  return {
    label,
    serverPid,
    call: async () => {
      const answer = await post({ id: nextId++, method: 'tools/call', params: { name: 'Read', arguments: args } });
      const result = CallToolResultSchema.parse((JSON.parse(answer.body) as { result: unknown }).result);
      if (result.isError) throw new Error(`Read failed: ${JSON.stringify(result.content)}`);
    },
    close: () => agent.destroy(),
  };
}

interface Sample {
  readonly wall: number;
  /** Client and server CPU per call, µs (undefined without /proc). */
  readonly cpu: number | undefined;
}

async function timedCalls(caller: Caller, calls: number): Promise<Sample> {
  const serverBefore = processCpuMicros(caller.serverPid);
  const clientBefore = process.cpuUsage();
  const t = nowMs();
  for (let i = 0; i < calls; i++) await caller.call();
  const wall = ((nowMs() - t) * 1000) / calls;
  const client = process.cpuUsage(clientBefore);
  const serverAfter = processCpuMicros(caller.serverPid);
  const cpu = serverBefore === undefined || serverAfter === undefined ? undefined : (client.user + client.system + serverAfter - serverBefore) / calls;
  return { wall, cpu };
}

/**
 * `tools/call Read` over Streamable HTTP on loopback (stateful session, and stateless by agent id)
 * against the same call over stdio, each to a real `toolhost mcp serve` process, in alternating
 * rounds of the same run; the ratio is the median of the per-round ratios. The SDK's clients are
 * the measure (what users run); a keep-alive node:http client shows what is left of HTTP itself
 * once the client is as light as the SDK's stdio one (the SDK's HTTP client goes through fetch).
 * CPU is the client's and the server's together, which a loaded machine does not distort.
 */
export async function mcpHttpBench(): Promise<void> {
  buildCli();
  const dir = fs.mkdtempSync(nodePath.join(benchDir(), 'mcp-http-'));
  fs.writeFileSync(nodePath.join(dir, 'file.txt'), Array.from({ length: 100 }, (_, i) => `line ${i + 1}: ${'text '.repeat(10)}`).join('\n') + '\n');
  const args = { path: 'file.txt', n_lines: 100 };
  const CALLS = 200;
  const ROUNDS = 7;

  const stdio = new Client({ name: 'bench', version: '1' });
  const stdioTransport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', 'serve', '--cwd', dir, '--no-watch'], stderr: 'ignore' });
  await stdio.connect(stdioTransport);
  const stateful = await startHttp([], dir);
  const stateless = await startHttp(['--stateless', '--data-dir', nodePath.join(dir, '.agents')], dir);
  const statefulUrl = `http://127.0.0.1:${stateful.port}/mcp`;
  const statelessUrl = `http://127.0.0.1:${stateless.port}/mcp/agents/bench`;
  const httpClient = new Client({ name: 'bench', version: '1' });
  await httpClient.connect(new StreamableHTTPClientTransport(new URL(statefulUrl)));
  const statelessClient = new Client({ name: 'bench', version: '1' });
  await statelessClient.connect(new StreamableHTTPClientTransport(new URL(statelessUrl)));
  const keepAlive = [
    await keepAliveCaller('Streamable HTTP, stateful session, keep-alive node:http client', statefulUrl, stateful.child.pid, args),
    await keepAliveCaller('Streamable HTTP, stateless /mcp/agents/<id>, keep-alive node:http client', statelessUrl.replace('/bench', '/bench-2'), stateless.child.pid, args),
  ];
  const callers = [
    sdkCaller('stdio, SDK client (baseline)', stdio, stdioTransport.pid ?? undefined, args),
    sdkCaller('Streamable HTTP, stateful session, SDK client', httpClient, stateful.child.pid, args),
    sdkCaller('Streamable HTTP, stateless /mcp/agents/<id>, SDK client', statelessClient, stateless.child.pid, args),
    ...keepAlive,
  ];

  for (const caller of callers) await timedCalls(caller, CALLS); // warm-up
  const samples = callers.map(() => [] as Sample[]);
  for (let r = 0; r < ROUNDS; r++) {
    for (const [i, caller] of callers.entries()) samples[i]!.push(await timedCalls(caller, CALLS));
  }
  const rss = { stdio: rssMb(stdioTransport.pid ?? undefined), stateful: rssMb(stateful.child.pid), stateless: rssMb(stateless.child.pid) };
  keepAlive.forEach((k) => k.close());
  await Promise.allSettled([stdio, httpClient, statelessClient].map((c) => c.close()));
  stateful.child.kill('SIGTERM');
  stateless.child.kill('SIGTERM');
  fs.rmSync(dir, { recursive: true, force: true });

  const baseline = samples[0]!;
  const ratio = (of: readonly Sample[], pick: (s: Sample) => number | undefined) => {
    const ratios = of.map((s, i) => (pick(s) ?? NaN) / (pick(baseline[i]!) ?? NaN));
    return ratios.some(Number.isNaN) ? 'n/a' : fmt(median(ratios));
  };
  const cpuMedian = (of: readonly Sample[]) => (of.some((s) => s.cpu === undefined) ? 'n/a' : fmt(median(of.map((s) => s.cpu!)), 0));
  console.log(`\n## mcp serve over Streamable HTTP vs stdio: tools/call Read (100 lines), ${CALLS} sequential calls per round, ${ROUNDS} alternating rounds`);
  console.log(
    table(
      ['transport and client', 'µs/call', 'ratio', 'CPU µs/call (client+server)', 'CPU ratio'],
      callers.map((caller, i) => [caller.label, fmt(median(samples[i]!.map((s) => s.wall)), 1), ratio(samples[i]!, (s) => s.wall), cpuMedian(samples[i]!), ratio(samples[i]!, (s) => s.cpu)]),
    ),
  );
  const mb = (value: number | undefined) => (value === undefined ? 'n/a' : `${fmt(value, 0)} MB`);
  console.log(`server RSS after the run: stdio ${mb(rss.stdio)}, HTTP stateful ${mb(rss.stateful)}, HTTP stateless ${mb(rss.stateless)}`);
  console.log(
    `HTTP stateful / stdio: ${ratio(samples[1]!, (s) => s.wall)}x; stateless / stdio: ${ratio(samples[2]!, (s) => s.wall)}x with the SDK's clients; ` +
      `${ratio(samples[3]!, (s) => s.wall)}x and ${ratio(samples[4]!, (s) => s.wall)}x with a keep-alive node:http client (aim: at most 1.5x)`,
  );
}
