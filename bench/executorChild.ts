// Memory figures in a fresh process: `idle`, `batch N` (N no-op calls), `spill BYTES` (one result of that size).
import 'reflect-metadata';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as nodePath from 'node:path';
import { injectable } from 'inversify';
import { createApp } from '../src/scopes/appScope';
import { createServiceId } from '../src/di/serviceId';
import { registerAgentToolService } from '../src/di/toolContribution';
import { ToolAccesses } from '../src/tool/accesses';
import type { ExecutableTool, ToolExecution } from '../src/tool/contract';
import { benchFeature } from './executor.bench';

let produced = '';

@injectable()
class ProduceTool implements ExecutableTool<object> {
  readonly name = 'Produce';
  readonly description = 'Returns a large text.';
  readonly parameters = { type: 'object', properties: {}, additionalProperties: false };
  resolveExecution(): ToolExecution {
    return { accesses: ToolAccesses.none(), approvalRule: 'Produce', execute: async () => ({ output: produced }) };
  }
}

async function main(): Promise<void> {
  const [mode, size] = process.argv.slice(2);
  const dataDir = fs.mkdtempSync(nodePath.join(os.tmpdir(), 'toolhost-bench-spill-'));
  const feature = benchFeature().contributeTool(
    registerAgentToolService(createServiceId<ProduceTool>('bench.Produce'), ProduceTool, { name: 'Produce', domain: 'bench', requiredRuntimeCapabilities: [], approval: 'auto' }),
  );
  // The retained cap is raised so the whole result is spilled, which is what is measured.
  const app = createApp({ features: [feature], config: { toolResult: { maxRetainedChars: 1_000_000_000 } } });
  const agent = app.createAgent({ cwd: process.cwd(), dataDir });
  try {
    if (mode === 'batch') {
      const n = Number(size);
      const calls = Array.from({ length: n }, (_, i) => ({ id: `c${i}`, name: 'Noop', arguments: `{"n":${i}}` }));
      const t = performance.now();
      const results = await agent.executor.execute(calls);
      if (results.length !== n) throw new Error('missing results');
      process.stdout.write(JSON.stringify({ ms: performance.now() - t }));
    } else if (mode === 'spill') {
      const baselineMb = process.memoryUsage.rss() / 1024 / 1024;
      produced = 'the quick brown fox jumps over the lazy dog 0123456789\n'.repeat(Math.ceil(Number(size) / 55)).slice(0, Number(size));
      const t = performance.now();
      const [result] = await agent.executor.execute([{ id: 'big', name: 'Produce', arguments: '{}' }]);
      const ms = performance.now() - t;
      if (!result?.outputPath || fs.statSync(result.outputPath).size !== produced.length) throw new Error('spill incomplete');
      process.stdout.write(JSON.stringify({ ms, resultMb: Math.round(produced.length / 1024 / 1024), baselineMb }));
    } else {
      process.stdout.write('{}');
    }
  } finally {
    await app.dispose();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

void main();
