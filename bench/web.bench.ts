import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { createApp } from '../src/scopes/appScope';
import { IContentExtractor } from '../src/tools/web/contract';
import { WorkerContentExtractor } from '../src/tools/web/extract/contentExtractor';
import { createWebToolsFeature } from '../src/tools/web/webFeature';
import { fmt, median, nowMs, table } from './util';
import { articleOfSize } from './webPages';

const ROUNDS = 7;
const DEADLINE_MS = 20_000;

/**
 * The web tools: (1) the content extractor on a 1.7 MB article against the 400 KB slice of the
 * same markup (warm worker, main content; linear would be 4.25x the time); (2) FetchURL of a 1 MB
 * page from a local server against undici fetching the same bytes plus the conversion alone.
 * Rounds alternate the order of the cases; medians.
 */
export async function webBench(): Promise<void> {
  await conversionBench();
  await fetchBench();
}

async function conversionBench(): Promise<void> {
  const large = articleOfSize(1_700_000);
  const small = articleOfSize(400_000);
  const extractor = new WorkerContentExtractor();
  const convert = async (html: string) => {
    const t = nowMs();
    const document = await extractor.htmlToMarkdown(html, { baseUrl: 'https://docs.example.com/guide', mainContent: true, deadlineMs: DEADLINE_MS });
    if (document.markdown.length < 1000) throw new Error('the conversion lost the article');
    return nowMs() - t;
  };
  await convert(small);
  const smallMs: number[] = [];
  const largeMs: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      smallMs.push(await convert(small));
      largeMs.push(await convert(large));
    } else {
      largeMs.push(await convert(large));
      smallMs.push(await convert(small));
    }
  }
  await extractor.dispose();
  const [s, l] = [median(smallMs), median(largeMs)];
  const bytesRatio = large.length / small.length;
  console.log(`\n## HTML → Markdown in the extractor worker (main content, warm, ${ROUNDS} alternating rounds, medians)`);
  console.log(
    table(
      ['input', 'bytes', 'ms', 'ratio', 'ms per 100 KB'],
      [
        ['400 KB slice', String(small.length), fmt(s, 0), '1.00x', fmt((s / small.length) * 102_400, 1)],
        ['1.7 MB article', String(large.length), fmt(l, 0), `${fmt(l / s)}x`, fmt((l / large.length) * 102_400, 1)],
      ],
    ),
  );
  console.log(`Input ratio ${fmt(bytesRatio)}x; time per byte ratio ${fmt(l / s / bytesRatio)}x. Aim: at most 3x the slice's time, and within the ${DEADLINE_MS / 1000} s deadline (1.7 MB took ${fmt(l / DEADLINE_MS * 100, 1)}% of it).`);
}

async function fetchBench(): Promise<void> {
  const page = articleOfSize(1_024 * 1_024);
  const bytes = Buffer.from(page);
  const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': bytes.length }).end(bytes));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const app = createApp({ features: [createWebToolsFeature()], config: { network: { allowPrivate: ['127.0.0.1'] }, fetch: { allowDomains: ['127.0.0.1'] } } });
  const agent = app.createAgent({ cwd: process.cwd() });
  const extractor = app.get(IContentExtractor);
  const undici = new Agent();
  let n = 0;
  const fetchUrl = async () => {
    // A new query each time: the document cache would otherwise answer.
    const t = nowMs();
    const [result] = await agent.executor.execute([{ id: `f${n}`, name: 'FetchURL', arguments: JSON.stringify({ url: `${origin}/page?i=${n++}` }) }]);
    if (result!.isError) throw new Error(String(result!.output));
    return nowMs() - t;
  };
  const baseline = async () => {
    const t = nowMs();
    const response = await undici.request({ origin, path: `/page?i=${n++}`, method: 'GET' });
    const html = Buffer.from(await response.body.arrayBuffer()).toString('utf8');
    const fetched = nowMs();
    await extractor.htmlToMarkdown(html, { baseUrl: origin, mainContent: true, deadlineMs: DEADLINE_MS });
    return { total: nowMs() - t, fetchMs: fetched - t, convertMs: nowMs() - fetched };
  };
  await fetchUrl();
  await baseline();
  const tool: number[] = [];
  const base: { total: number; fetchMs: number; convertMs: number }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      tool.push(await fetchUrl());
      base.push(await baseline());
    } else {
      base.push(await baseline());
      tool.push(await fetchUrl());
    }
  }
  await undici.close();
  await app.dispose();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  const baseMs = median(base.map((b) => b.total));
  const toolMs = median(tool);
  console.log(`\n## FetchURL of a ${fmt(bytes.length / 1_048_576)} MB page from a local server (${ROUNDS} alternating rounds, medians)`);
  console.log(
    table(
      ['case', 'ms', 'ratio'],
      [
        [`undici fetch (${fmt(median(base.map((b) => b.fetchMs)), 0)} ms) + conversion alone (${fmt(median(base.map((b) => b.convertMs)), 0)} ms)`, fmt(baseMs, 0), '1.00x'],
        ['FetchURL through the executor', fmt(toolMs, 0), `${fmt(toolMs / baseMs)}x`],
      ],
    ),
  );
  console.log('Aim: at most 1.5x.');
}
