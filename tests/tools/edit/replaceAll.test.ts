import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as nodePath from 'node:path';
import { createLocalRuntime } from '../../../src/services/runtime/localRuntime';
import type { Runtime, RuntimeFs } from '../../../src/services/runtime/runtime';
import { type ByteSink, tallyOccurrences, writeReplacingAll } from '../../../src/tools/edit/editText';
import { useAgent } from '../../helpers/agentHarness';
import { runIsolated } from '../../helpers/isolated';
import { useTempDir } from '../../helpers/tempDir';

const b = (s: string) => Buffer.from(s, 'utf8');

/** A sink that keeps what it is given, and how many writes it took. */
function collectingSink(onWrite?: () => void): ByteSink & { readonly text: string; readonly writes: number } {
  const chunks: Buffer[] = [];
  return {
    write: async (data) => {
      chunks.push(Buffer.from(data));
      onWrite?.();
    },
    get text() {
      return Buffer.concat(chunks).toString('utf8');
    },
    get writes() {
      return chunks.length;
    },
  };
}

describe('writeReplacingAll: one pass that replaces, writes and numbers lines', () => {
  // [haystack, needle, replacement, from, output, count, lines, distinct lines]
  test.each<[string, string, string, number, string, number, number[], number]>([
    ['a x a\nb a\n\nc a a', 'a', 'X', 0, 'X x X\nb X\n\nc X X', 5, [1, 2, 4], 3],
    ['ab\ncd\nab\ncd', 'b\nc', '-', 0, 'a-d\na-d', 2, [1, 3], 2],
    ['aaaa', 'aa', 'X', 0, 'XX', 2, [1], 1],
    ['abc', 'x', 'y', 0, 'abc', 0, [], 0],
    ['a a a', 'a', 'X', 1, 'a X X', 2, [1], 1],
    ['é€\r\n€é', '€', '$&', 0, 'é$&\r\n$&é', 2, [1, 2], 2],
    [Array.from({ length: 14 }, () => 'k').join('\n'), 'k', 'v', 0, Array.from({ length: 14 }, () => 'v').join('\n'), 14, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 14],
  ])('%j: %j → %j from %i', async (haystack, needle, replacement, from, output, count, lines, distinctLines) => {
    const sink = collectingSink();
    const result = await writeReplacingAll(sink, b(haystack), b(needle), b(replacement), { signal: new AbortController().signal, listLines: 10, from });
    expect(sink.text).toBe(output);
    expect(result).toEqual({ count, lines, distinctLines });
  });

  test('pieces larger than a gathered write, and pieces that fill one, come out in order', async () => {
    const haystack = `${'x'.repeat(300_000)}a${'y'.repeat(200_000)}a\n${'z'.repeat(100_000)}a`;
    const sink = collectingSink();
    const result = await writeReplacingAll(sink, b(haystack), b('a'), b('BB'), { signal: new AbortController().signal, listLines: 10 });
    expect(sink.text).toBe(haystack.replaceAll('a', 'BB'));
    expect(result).toEqual({ count: 3, lines: [1, 2], distinctLines: 2 });
    expect(sink.writes).toBeGreaterThan(1);
  });

  test('an abort stops it: before it starts, and while it writes', async () => {
    const aborted = new AbortController();
    aborted.abort();
    await expect(writeReplacingAll(collectingSink(), b('aaa'), b('a'), b('b'), { signal: aborted.signal, listLines: 10 })).rejects.toMatchObject({ name: 'AbortError' });
    const controller = new AbortController();
    // The first gathered write aborts; hundreds of thousands of occurrences are still to come.
    const sink = collectingSink(() => controller.abort());
    await expect(writeReplacingAll(sink, b('ab'.repeat(640_000)), b('a'), b('xyz'), { signal: controller.signal, listLines: 10 })).rejects.toMatchObject({
      name: 'AbortError',
    });
    expect(sink.text.length).toBeLessThan(640_000 * 4);
  });
});

describe('tallyOccurrences: the count and lines of "occurs N times", in one pass', () => {
  test('overlapping occurrences and their distinct lines', async () => {
    const signal = new AbortController().signal;
    expect(await tallyOccurrences(b('aaaa'), b('aa'), { overlapping: true, listLines: 10, signal })).toEqual({ count: 3, lines: [1], distinctLines: 1 });
    expect(await tallyOccurrences(b('xa\n\nya\na'), b('a'), { overlapping: true, listLines: 2, signal })).toEqual({ count: 3, lines: [1, 3], distinctLines: 3 });
  });

  test('an abort is seen between line breaks too, not only between occurrences', async () => {
    const controller = new AbortController();
    // A million line breaks before the one occurrence: the pass pauses every few thousand steps.
    const counting = tallyOccurrences(Buffer.concat([Buffer.alloc(1_000_000, 0x0a), b('a')]), b('a'), { listLines: 10, signal: controller.signal });
    controller.abort();
    await expect(counting).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('Edit replace_all on one long line', () => {
  const dir = useTempDir();

  test('640,000 occurrences on one 10 MB line: counted for the refusal, then replaced exactly (in a child process killed on a hang)', async () => {
    const line = `${'a'}${'b'.repeat(15)}`.repeat(640_000);
    const content = `first line\n${line}\nlast a line\n`;
    fs.writeFileSync(nodePath.join(dir.path, 'big.txt'), content);
    const outputs = await runIsolated<string[]>(
      `
      const { createApp, builtinFeatures } = load('index.js');
      const app = createApp({ features: builtinFeatures(), config: { staleGuard: { enabled: false }, approval: { allow: ['Edit'] } } });
      const agent = app.createAgent({ cwd: input.dir });
      const out = [];
      for (const replace_all of [false, true]) {
        const [result] = await agent.executor.execute([{ id: 'call', name: 'Edit', arguments: { path: 'big.txt', old_string: 'a', new_string: 'xyz', replace_all } }]);
        out.push(result.outcome, String(result.output));
      }
      await app.dispose();
      return out;
      `,
      { dir: dir.path },
      { killAfterMs: 30_000 },
    );
    expect(outputs).toEqual([
      'executed',
      'old_string occurs 640,002 times in "big.txt" (at lines 2, 3). Add more surrounding lines to old_string so that it matches exactly one place, or set replace_all to true to replace all 640,002.',
      'executed',
      'Replaced 640,002 occurrences in big.txt (lines 2, 3).',
    ]);
    expect(fs.readFileSync(nodePath.join(dir.path, 'big.txt')).equals(Buffer.from(content.replaceAll('a', 'xyz')))).toBe(true);
  }, 45_000);
});

describe('Edit replace_all aborted while it writes', () => {
  const fx = useAgent({ builtins: true, config: { staleGuard: { enabled: false }, approval: { allow: ['Edit'] } } });

  /** The local runtime, whose temporary files (opened 'wx' by the atomic write) call `onWrite` at each write. */
  function runtimeWritingThrough(onWrite: () => void): Runtime {
    const base = createLocalRuntime();
    const open: RuntimeFs['open'] = async (...args: Parameters<RuntimeFs['open']>) => {
      const handle = await fsp.open(...args);
      if (args[1] !== 'wx') return handle;
      const write = handle.write.bind(handle) as (...a: unknown[]) => Promise<{ bytesWritten: number; buffer: Buffer }>;
      return Object.assign(Object.create(handle) as typeof handle, {
        write: async (...writeArgs: unknown[]) => {
          onWrite();
          return write(...writeArgs);
        },
        close: () => handle.close(),
      });
    };
    return { ...base, name: 'writing-through', fs: { ...base.fs!, open } };
  }

  test('ends the call as aborted; the file is untouched and no temporary file is left', async () => {
    const controller = new AbortController();
    const h = fx.open({ runtime: runtimeWritingThrough(() => controller.abort()) });
    const content = `${'ab'.repeat(640_000)}\n`;
    fs.writeFileSync(nodePath.join(fx.dir, 'big.txt'), content);
    const result = await h.call('Edit', { path: 'big.txt', old_string: 'a', new_string: 'xyz', replace_all: true }, { signal: controller.signal });
    expect([result.outcome, result.output]).toEqual(['aborted', 'Tool "Edit" was aborted']);
    expect(fs.readFileSync(nodePath.join(fx.dir, 'big.txt'), 'utf8')).toBe(content);
    expect(fs.readdirSync(fx.dir)).toEqual(['big.txt']);
  });
});
