import { injectable } from 'inversify';
import { createApp } from '../src/scopes/appScope';
import { Feature } from '../src/di/feature';
import { createServiceId } from '../src/di/serviceId';
import { registerAgentToolService } from '../src/di/toolContribution';
import { ToolAccesses } from '../src/tool/accesses';
import type { ExecutableTool, ToolExecution } from '../src/tool/contract';
import { builtinFeatures } from '../src/scopes/builtinFeatures';
import { fmt, median, nowMs, table } from './util';

function contributedFeature(count: number): Feature {
  const feature = new Feature(`bench-${count}`);
  for (let i = 0; i < count; i++) {
    const name = `BenchTool${i}`;
    @injectable()
    class BenchTool implements ExecutableTool<object> {
      readonly name = name;
      readonly description = 'A benchmark tool.';
      readonly parameters = { type: 'object', properties: {}, additionalProperties: false };
      resolveExecution(): ToolExecution {
        return { accesses: ToolAccesses.none(), approvalRule: name, execute: async () => ({ output: '' }) };
      }
    }
    feature.contributeTool(registerAgentToolService(createServiceId<BenchTool>(`bench.${name}`), BenchTool, { name, domain: 'bench', requiredRuntimeCapabilities: [] }));
  }
  return feature;
}

async function measure(label: string, features: () => Feature[], rounds: number): Promise<string[]> {
  const app = createApp({ features: features() });
  const cwd = process.cwd();
  // Warm up: module code, inversify plans, JIT.
  for (let i = 0; i < 3; i++) await app.createAgent({ cwd }).dispose();
  const samples: number[] = [];
  let active = 0;
  for (let i = 0; i < rounds; i++) {
    const start = nowMs();
    const agent = app.createAgent({ cwd });
    samples.push(nowMs() - start);
    active = agent.registry.list().length;
    await agent.dispose();
  }
  await app.dispose();
  return [label, String(active), fmt(median(samples)), fmt(Math.min(...samples))];
}

export async function activationBench(): Promise<void> {
  console.log('\n## Agent scope creation + tool activation (createAgent, all activated tools constructed)');
  const rows = [await measure('builtin tools', () => builtinFeatures(), 50), await measure('1,000 contributed tools', () => [contributedFeature(1000)], 15)];
  console.log(table(['case', 'active tools', 'median ms', 'min ms'], rows));
}
