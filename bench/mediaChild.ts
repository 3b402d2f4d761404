// ReadMediaFile fitting one large image, or sharp doing the same resize directly, in a fresh
// process (so its peak RSS can be measured): prints {ms, bytes, width, height}. `pair` alternates
// both in one process, warm, and prints their medians.
import 'reflect-metadata';
import * as nodePath from 'node:path';
import sharp from 'sharp';
import { createApp } from '../src/scopes/appScope';
import { createMediaFeature } from '../src/tools/media/mediaFeature';
import { median, nowMs } from './util';

type Fit = { ms: number; bytes: number; width: number; height: number };

async function main(): Promise<void> {
  const [file, mode] = process.argv.slice(2) as [string, 'tool' | 'direct' | 'pair'];
  const app = createApp({ features: [createMediaFeature()] });
  const agent = app.createAgent({ cwd: nodePath.dirname(file), modelCapabilities: ['image_in'] });
  const tool = agent.registry.get('ReadMediaFile')!.tool;

  const viaTool = async (): Promise<Fit> => {
    const start = nowMs();
    const execution = await tool.resolveExecution({ path: file } as never);
    if (execution.isError) throw new Error(String(execution.output));
    const result = await execution.execute({ toolCallId: 'bench', signal: new AbortController().signal, onUpdate: () => undefined, metadata: {} });
    const ms = nowMs() - start;
    if (result.isError) throw new Error(JSON.stringify(result.output));
    const facts = result.structuredContent as { sentBytes: number; sentWidth: number; sentHeight: number };
    return { ms, bytes: facts.sentBytes, width: facts.sentWidth, height: facts.sentHeight };
  };
  const direct = async (): Promise<Fit> => {
    const start = nowMs();
    const { data, info } = await sharp(file).resize({ width: 2000, height: 2000, fit: 'inside', withoutEnlargement: true }).jpeg({ quality: 85 }).toBuffer({ resolveWithObject: true });
    const ms = nowMs() - start;
    return { ms, bytes: data.length, width: info.width, height: info.height };
  };

  if (mode === 'pair') {
    await viaTool();
    await direct();
    const tools: number[] = [];
    const directs: number[] = [];
    for (let i = 0; i < 9; i++) {
      // Alternating which goes first, so neither always runs on a warmer cache.
      if (i % 2 === 0) {
        tools.push((await viaTool()).ms);
        directs.push((await direct()).ms);
      } else {
        directs.push((await direct()).ms);
        tools.push((await viaTool()).ms);
      }
    }
    process.stdout.write(JSON.stringify({ tool: median(tools), direct: median(directs) }));
  } else {
    // sharp is loaded in both modes before the clock starts: the figure is the fit, not the require.
    void sharp.versions;
    process.stdout.write(JSON.stringify(mode === 'tool' ? await viaTool() : await direct()));
  }
  await app.dispose();
}

void main();
