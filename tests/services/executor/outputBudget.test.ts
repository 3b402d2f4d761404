import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { ToolAccesses } from '../../../src/tool/accesses';
import { FakeHost } from '../../helpers/fakeHost';
import { useTempDir, writeFiles } from '../../helpers/tempDir';
import { testTool } from '../../helpers/testTools';
import { type Harness, openHarness } from '../../helpers/agentHarness';

const dir = useTempDir();
let h: Harness;
afterEach(() => h?.dispose());

/** Output of a given size whose head and tail are recognisable. */
function bigText(size: number): string {
  const head = 'HEAD-START ';
  const tail = ' TAIL-END';
  let body = '';
  let line = 0;
  while (head.length + body.length + tail.length < size) body += `line ${line++} ${'x'.repeat(60)}\n`;
  return (head + body).slice(0, size - tail.length) + tail;
}

function producer(text: string, extra: Record<string, unknown> = {}) {
  return testTool('Big', { accesses: () => ToolAccesses.none(), approval: 'auto', execute: () => ({ output: text, ...extra }) });
}

describe('the output budget', () => {
  test('text over the limit is spilled whole; the result points at it with head and tail', async () => {
    const text = bigText(120_000);
    h = openHarness({ cwd: dir.path, tools: [producer(text)], dataDir: nodePath.join(dir.path, 'data') });
    const [result] = await h.agent.executor.execute([{ id: 'call_1', name: 'Big', arguments: {} }]);
    expect(result!.truncated).toBe(true);
    expect(result!.outputPath).toMatch(new RegExp(`^${dir.path}/data/tool-results/Big-call_1-[0-9a-f-]{36}\\.txt$`));
    expect(fs.readFileSync(result!.outputPath!, 'utf8')).toBe(text);
    const output = result!.output as string;
    const lines = output.split('\n');
    expect(lines[0]).toBe('The output has 120,000 characters, more than the 50,000 a tool result may have.');
    expect(lines[1]).toBe(`output_path: ${result!.outputPath}`);
    expect(lines[2]).toBe('The full output is in that file: page through it with Read (line_offset, n_lines) or search it with Grep instead of running the tool again.');
    expect(output).toContain(`[first 4,096 characters]\n${text.slice(0, 4096)}\n[… ${(120_000 - 4096 - 1024).toLocaleString('en-US')} characters omitted …]\n[last 1,024 characters]\n${text.slice(-1024)}`);
    expect(output.length).toBeLessThan(6_000);
    expect(h.finishedEvents[0]).toMatchObject({ truncated: true, outputPath: result!.outputPath });
  });

  test('text at the limit passes untouched', async () => {
    const text = bigText(50_000);
    h = openHarness({ cwd: dir.path, tools: [producer(text)] });
    const [result] = await h.agent.executor.execute([{ id: 'c', name: 'Big', arguments: {} }]);
    expect(result).toMatchObject({ output: text, truncated: false });
    expect(result!.outputPath).toBeUndefined();
  });

  test('spillExempt results pass untouched whatever their size', async () => {
    const text = bigText(80_000);
    h = openHarness({ cwd: dir.path, tools: [producer(text, { spillExempt: true })] });
    const [result] = await h.agent.executor.execute([{ id: 'c', name: 'Big', arguments: {} }]);
    expect(result).toMatchObject({ output: text, truncated: false });
  });

  test('two spills never share a file, even for the same call id', async () => {
    h = openHarness({ cwd: dir.path, tools: [producer(bigText(60_000))], dataDir: nodePath.join(dir.path, 'data') });
    const results = await h.agent.executor.execute([
      { id: 'same', name: 'Big', arguments: {} },
      { id: 'same', name: 'Big', arguments: {} },
    ]);
    const [a, b] = results.map((r) => r.outputPath!);
    expect(a).not.toBe(b);
    expect(fs.readdirSync(nodePath.join(dir.path, 'data', 'tool-results'))).toHaveLength(2);
  });

  test('the limits come from config; the retained cap bounds the file', async () => {
    const text = bigText(30_000);
    h = openHarness({ cwd: dir.path, tools: [producer(text)], config: { toolResult: { maxChars: 10_000, maxRetainedChars: 20_000 } } });
    const [result] = await h.agent.executor.execute([{ id: 'c', name: 'Big', arguments: {} }]);
    expect(fs.readFileSync(result!.outputPath!, 'utf8')).toBe(text.slice(0, 20_000));
    expect((result!.output as string).split('\n').slice(0, 3)).toEqual([
      'The output has 30,000 characters, more than the 10,000 a tool result may have.',
      `output_path: ${result!.outputPath}`,
      'The full output (its first 20,000 characters) is in that file: page through it with Read (line_offset, n_lines) or search it with Grep instead of running the tool again.',
    ]);
  });

  test('a failed spill still returns a truncated result, never the oversized one', async () => {
    writeFiles(dir.path, { 'blocked': 'a file where the data directory should be' });
    const text = bigText(70_000);
    h = openHarness({ cwd: dir.path, tools: [producer(text)], dataDir: nodePath.join(dir.path, 'blocked') });
    const [result] = await h.agent.executor.execute([{ id: 'c', name: 'Big', arguments: {} }]);
    const output = result!.output as string;
    expect(result!.truncated).toBe(true);
    expect(result!.outputPath).toBeUndefined();
    expect(output.split('\n')[1]).toMatch(/^The full output could not be saved \(.*(ENOTDIR|EEXIST).*\); only this preview is available\.$/);
    expect(output.length).toBeLessThan(6_000);
    expect(output).toContain(text.slice(-1024));
  });

  test('error results are budgeted too, and keep isError', async () => {
    h = openHarness({ cwd: dir.path, tools: [producer(bigText(60_000), { isError: true })] });
    const [result] = await h.agent.executor.execute([{ id: 'c', name: 'Big', arguments: {} }]);
    expect(result).toMatchObject({ isError: true, truncated: true });
  });

  test('text parts next to media are spilled and the media is kept', async () => {
    const text = bigText(60_000);
    const image = { type: 'image' as const, data: 'AAAA', mimeType: 'image/png' };
    h = openHarness({ cwd: dir.path, tools: [testTool('Mixed', { accesses: () => [], approval: 'auto', execute: () => ({ output: [{ type: 'text', text }, image] }) })] });
    const [result] = await h.agent.executor.execute([{ id: 'c', name: 'Mixed', arguments: {} }]);
    const parts = result!.output as Array<{ type: string; text?: string }>;
    expect(parts).toHaveLength(2);
    expect(parts[0]!.text).toMatch(/^The output has 60,000 characters/);
    expect(parts[1]).toEqual(image);
  });

  test('Read opens the spilled file, without asking for approval', async () => {
    const text = bigText(90_000);
    const interactions = new FakeHost({ approval: () => ({ decision: 'reject' }) });
    h = openHarness({ cwd: dir.path, builtins: true, tools: [producer(text)], interactions });
    const [spilled] = await h.agent.executor.execute([{ id: 'c', name: 'Big', arguments: {} }]);
    const [read] = await h.agent.executor.execute([{ id: 'r', name: 'Read', arguments: { path: spilled!.outputPath, line_offset: -1 } }]);
    expect(read!.outcome).toBe('executed');
    expect(read!.output).toContain('TAIL-END');
    expect(interactions.requests).toEqual([]);
  });
});
