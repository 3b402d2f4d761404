import 'reflect-metadata';
import { activationBench } from './activation.bench';
import { agentBench } from './agent.bench';
import { bashBench, sandboxBench } from './bash.bench';
import { cronBench } from './cron.bench';
import { executorBench } from './executor.bench';
import { filesBench } from './files.bench';
import { hooksBench } from './hooks.bench';
import { mcpServeBench } from './mcpServe.bench';
import { mcpHttpBench } from './mcpHttp.bench';
import { mcpBench } from './mcp.bench';
import { mediaBench } from './media.bench';
import { readBench } from './read.bench';
import { grepFilesBench } from './grepFiles.bench';
import { planBench } from './plan.bench';
import { queueBench } from './queue.bench';
import { globBench, grepBench, grepRssBench } from './search.bench';
import { startupBench } from './startup.bench';
import { webBench } from './web.bench';
import { swarmBench } from './swarm.bench';
import { towerBench } from './tower.bench';

/** `npm run bench [name ...]`: prints figures next to their baselines; asserts nothing. */
const BENCHES: Record<string, () => Promise<void>> = {
  activation: activationBench,
  agent: agentBench,
  bash: bashBench,
  sandbox: sandboxBench,
  cron: cronBench,
  executor: executorBench,
  read: readBench,
  files: filesBench,
  hooks: hooksBench,
  'mcp-serve': mcpServeBench,
  'mcp-http': mcpHttpBench,
  plan: planBench,
  queue: queueBench,
  grep: grepBench,
  'grep-files': grepFilesBench,
  'grep-rss': grepRssBench,
  glob: globBench,
  mcp: mcpBench,
  media: mediaBench,
  startup: startupBench,
  web: webBench,
  swarm: swarmBench,
  tower: towerBench,
};

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((name) => !(name in BENCHES));
  if (unknown.length > 0) {
    console.error(`Unknown benchmark(s): ${unknown.join(', ')}. Known: ${Object.keys(BENCHES).join(', ')}.`);
    process.exitCode = 2;
    return;
  }
  console.log(`# toolhost benchmarks — Node ${process.version}, ${new Date().toISOString()}`);
  for (const name of wanted.length > 0 ? wanted : Object.keys(BENCHES)) await BENCHES[name]!();
}

void main();
