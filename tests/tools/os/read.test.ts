import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
// The module object itself (an `import *` is a copy of getters): jest.spyOn replaces its functions.
import nodeFs = require('node:fs');
import { IConfigService } from '../../../src/services/config/config';
import { createLocalRuntime } from '../../../src/services/runtime/localRuntime';
import { IAgentRuntimeService } from '../../../src/services/runtime/runtime';
import { type ReadableHandle, readForward, readTail } from '../../../src/tools/os/read/lineReader';
import { callTool, text, useAgent } from '../../helpers/agentHarness';
import { countingRuntime } from '../../helpers/countingRuntime';
import { executeAfter, releaseFifo, replaceWithFifo, replaceWithSymlink, swapOnFirstOpen } from '../../helpers/pathSwap';
import { makeTempDir, removeDir, writeFiles } from '../../helpers/tempDir';

const fx = useAgent({ builtins: true });

async function read(input: Record<string, unknown>): Promise<string> {
  return text(await callTool(fx.agent, 'Read', input));
}

describe('Read output', () => {
  beforeEach(() => fx.open());

  test('numbers every line and ends with a status line', async () => {
    writeFiles(fx.dir, { 'a.txt': 'alpha\nbeta\ngamma\n' });
    expect(await read({ path: 'a.txt' })).toBe('1\talpha\n2\tbeta\n3\tgamma\n<system>Lines 1-3 of 3. End of file reached.</system>');
  });

  test('a last line without a newline is still a line', async () => {
    writeFiles(fx.dir, { 'a.txt': 'one\ntwo' });
    expect(await read({ path: 'a.txt' })).toBe('1\tone\n2\ttwo\n<system>Lines 1-2 of 2. End of file reached.</system>');
  });

  test('empty lines and a single line', async () => {
    writeFiles(fx.dir, { 'a.txt': '\n\nx\n', 'b.txt': 'only' });
    expect(await read({ path: 'a.txt' })).toBe('1\t\n2\t\n3\tx\n<system>Lines 1-3 of 3. End of file reached.</system>');
    expect(await read({ path: 'b.txt' })).toBe('1\tonly\n<system>Line 1 of 1. End of file reached.</system>');
  });

  test('line_offset and n_lines page through a file, and the status says where to continue', async () => {
    writeFiles(fx.dir, { 'a.txt': Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n') + '\n' });
    expect(await read({ path: 'a.txt', line_offset: 4, n_lines: 3 })).toBe(
      '4\tline 4\n5\tline 5\n6\tline 6\n<system>Lines 4-6 of 10. Stopped at the 3-line limit; continue with line_offset=7.</system>',
    );
    expect(await read({ path: 'a.txt', line_offset: 9 })).toBe('9\tline 9\n10\tline 10\n<system>Lines 9-10 of 10. End of file reached.</system>');
    expect(await read({ path: 'a.txt', line_offset: 11 })).toBe('<system>No lines read: the file has 10 lines, so line_offset=11 is past the end.</system>');
  });

  test('a negative line_offset reads from the end with absolute line numbers', async () => {
    writeFiles(fx.dir, { 'a.txt': Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n') + '\n' });
    expect(await read({ path: 'a.txt', line_offset: -2 })).toBe('9\tline 9\n10\tline 10\n<system>Lines 9-10 of 10. End of file reached.</system>');
    expect(await read({ path: 'a.txt', line_offset: -50, n_lines: 2 })).toBe(
      '1\tline 1\n2\tline 2\n<system>Lines 1-2 of 10. Stopped at the 2-line limit; continue with line_offset=3.</system>',
    );
  });

  test('the default line limit comes from config', async () => {
    await fx.app.dispose();
    fx.open({ config: { read: { maxLines: 2 } } });
    writeFiles(fx.dir, { 'a.txt': 'a\nb\nc\n' });
    expect(await read({ path: 'a.txt' })).toBe('1\ta\n2\tb\n<system>Lines 1-2 of 3. Stopped at the 2-line limit; continue with line_offset=3.</system>');
  });

  test('the character budget stops a read, and tail reads keep the newest lines', async () => {
    await fx.app.dispose();
    fx.open({ config: { read: { maxChars: 1000 } } });
    const lines = Array.from({ length: 100 }, (_, i) => `${String(i + 1).padStart(3, '0')} ${'x'.repeat(40)}`);
    writeFiles(fx.dir, { 'a.txt': lines.join('\n') + '\n' });
    const head = await read({ path: 'a.txt' });
    expect(head.length).toBeLessThanOrEqual(1000 + 200);
    expect(head).toMatch(/^1\t001 x+\n/);
    expect(head).toMatch(/<system>Lines 1-21 of 100\. Stopped at the 1,000-character budget; continue with line_offset=22\.<\/system>$/);
    const tail = await read({ path: 'a.txt', line_offset: -100 });
    expect(tail).toMatch(/\n100\t100 x+\n<system>Lines 81-100 of 100\. Older lines were left out to stay within the 1,000-character budget\.<\/system>$/);
  });

  test('a very long line is cut with a visible marker, and the status says so', async () => {
    writeFiles(fx.dir, { 'a.txt': `short\n${'é'.repeat(3000)}\nend\n` });
    const out = await read({ path: 'a.txt' });
    expect(out).toBe(
      `1\tshort\n2\t${'é'.repeat(2000)} [...line truncated: 6,000 bytes in total]\n3\tend\n` +
        '<system>Lines 1-3 of 3. End of file reached. Line 2 was longer than 2,000 characters and cut.</system>',
    );
  });

  test('CRLF files are shown without \\r, and the status says so', async () => {
    writeFiles(fx.dir, { 'a.txt': 'a\r\nb\r\n' });
    expect(await read({ path: 'a.txt' })).toBe('1\ta\n2\tb\n<system>Lines 1-2 of 2. End of file reached. The file uses CRLF line endings (shown without \\r).</system>');
  });

  test('a UTF-8 byte-order mark is not shown; UTF-16 with a mark is converted', async () => {
    writeFiles(fx.dir, {
      'bom.txt': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('hé\nthere\n')]),
      'u16.txt': Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('hé\nthere\n', 'utf16le')]),
    });
    expect(await read({ path: 'bom.txt' })).toBe('1\thé\n2\tthere\n<system>Lines 1-2 of 2. End of file reached.</system>');
    expect(await read({ path: 'u16.txt' })).toBe('1\thé\n2\tthere\n<system>Lines 1-2 of 2. End of file reached. The file is UTF-16 LE text, shown converted.</system>');
  });

  test('bytes that are not UTF-8 are shown as U+FFFD and reported', async () => {
    writeFiles(fx.dir, { 'latin1.txt': Buffer.from('ok\ncaf\xe9\n', 'latin1') });
    expect(await read({ path: 'latin1.txt' })).toBe(
      '1\tok\n2\tcaf\uFFFD\n<system>Lines 1-2 of 2. End of file reached. Line 2 contains bytes that are not valid UTF-8, shown as \uFFFD.</system>',
    );
  });

  test('an empty file', async () => {
    writeFiles(fx.dir, { 'empty.txt': '' });
    expect(await read({ path: 'empty.txt' })).toBe('<system>The file is empty (0 bytes).</system>');
  });

  test('results are spill-exempt (Read pages by itself)', async () => {
    writeFiles(fx.dir, { 'a.txt': 'x\n' });
    expect((await callTool(fx.agent, 'Read', { path: 'a.txt' })).spillExempt).toBe(true);
  });
});

describe('Read errors say what to do instead', () => {
  beforeEach(() => fx.open());

  test.each<[string, Record<string, string | Buffer>, string, string]>([
    ['a missing file', {}, 'nope.txt', '"nope.txt" does not exist. Check the path, or use Glob to find the file by name.'],
    ['a directory', { 'src/a.ts': '' }, 'src', '"src" is a directory, not a file. Use Glob to find files in it, or run `ls` through Bash to list it.'],
    ['a PNG image', { 'i.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]) }, 'i.png', '"i.png" is a PNG image, not a text file. Read only reads text files.'],
    ['a binary file', { 'b.bin': Buffer.from([1, 2, 0, 3, 4, 0, 0, 9, 200, 201]) }, 'b.bin', '"b.bin" looks like a binary file (it contains NUL bytes). Read only reads text files; use Bash (e.g. `file` or `xxd | head`) to inspect it.'],
    ['a NUL past the first 8 KB, inside the window', { 'late.txt': 'aaaaaaaaa\n'.repeat(1000) + 'x\0y\n' }, 'late.txt', '"late.txt" looks like a binary file (it contains NUL bytes). Read only reads text files; use Bash (e.g. `file` or `xxd | head`) to inspect it.'],
    ['a secret', { '.env': 'KEY=1' }, '.env', '".env" matches a sensitive-file pattern (env file, credentials, private key). Access is blocked to protect secrets.'],
    ['a relative path that leaves the workspace', {}, '../x.txt', '"../x.txt" is not an absolute path. You must provide an absolute path to read a file outside the working directory.'],
  ])('%s', async (_name, files, path, message) => {
    writeFiles(fx.dir, files);
    const result = await callTool(fx.agent, 'Read', { path });
    expect(result).toEqual({ output: message, isError: true });
  });

  test('a runtime switch between resolve and execute refuses to run', async () => {
    writeFiles(fx.dir, { 'a.txt': 'a\n' });
    const execution = await fx.agent.registry.get('Read')!.tool.resolveExecution({ path: 'a.txt' } as never);
    fx.agent.get(IAgentRuntimeService).switch(createLocalRuntime());
    if (execution.isError) throw new Error('unexpected');
    expect(await execution.execute({ toolCallId: 'c', signal: new AbortController().signal, onUpdate: () => undefined, metadata: {} })).toEqual({
      output: 'The runtime changed after this call was prepared. Retry the tool call.',
      isError: true,
    });
  });
});

describe('Read opens exactly the file the call was resolved with', () => {
  let outside = '';
  beforeEach(() => {
    outside = makeTempDir('toolhost-outside-');
    writeFiles(outside, { 'notes.txt': 'outside the workspace\n' });
  });
  afterEach(() => {
    releaseFifo(nodePath.join(fx.dir, 'a.txt'));
    removeDir(outside);
  });

  test('a file swapped for a link to .env after resolution is refused, and nothing of .env is returned', async () => {
    fx.open();
    writeFiles(fx.dir, { 'a.txt': 'a\n', '.env': 'SECRET=hunter2\n' });
    const result = await executeAfter(fx.agent, 'Read', { path: 'a.txt' }, () => replaceWithSymlink(nodePath.join(fx.dir, 'a.txt'), nodePath.join(fx.dir, '.env')));
    expect(result).toEqual({
      isError: true,
      output: `"a.txt" changed between the approval and the read (it is now a link to "${fx.dir}/.env"); nothing was read. Check the path and call again.`,
    });
  });

  test('a file swapped for a link outside the workspace is refused', async () => {
    fx.open();
    writeFiles(fx.dir, { 'a.txt': 'a\n' });
    const result = await executeAfter(fx.agent, 'Read', { path: 'a.txt' }, () => replaceWithSymlink(nodePath.join(fx.dir, 'a.txt'), nodePath.join(outside, 'notes.txt')));
    expect(text(result)).toBe(`"a.txt" changed between the approval and the read (it is now a link to "${outside}/notes.txt"); nothing was read. Check the path and call again.`);
  });

  test('a folder on the path swapped for a link is refused: the kernel path of the opened file is checked', async () => {
    fx.open();
    writeFiles(fx.dir, { 'sub/notes.txt': 'inside\n' });
    const result = await executeAfter(fx.agent, 'Read', { path: 'sub/notes.txt' }, () => replaceWithSymlink(nodePath.join(fx.dir, 'sub'), outside));
    expect(text(result)).toBe(
      `"sub/notes.txt" changed between the approval and the read (a folder on its path is now a link, so it leads to "${outside}/notes.txt"); nothing was read. Check the path and call again.`,
    );
  });

  test('a FIFO swapped in after every check, right before the open, is refused at once instead of blocking the read', async () => {
    const file = nodePath.join(fx.dir, 'a.txt');
    writeFiles(fx.dir, { 'a.txt': 'a\n' });
    fx.open({ runtime: swapOnFirstOpen(file, () => replaceWithFifo(file)) });
    expect(await callTool(fx.agent, 'Read', { path: 'a.txt' })).toEqual({
      isError: true,
      output: '"a.txt" is not a regular file (it is a FIFO (named pipe)). Read only reads regular files; nothing was read.',
    });
    expect(fs.statSync(file).isFIFO()).toBe(true);
  });

  test('a FIFO or a device named directly is refused without blocking', async () => {
    fx.open();
    execFileSync('mkfifo', [nodePath.join(fx.dir, 'pipe')]);
    expect(text(await callTool(fx.agent, 'Read', { path: 'pipe' }))).toBe('"pipe" is not a regular file (it is a FIFO (named pipe)). Read only reads regular files; nothing was read.');
    expect(text(await callTool(fx.agent, 'Read', { path: '/dev/zero' }))).toBe('"/dev/zero" is not a regular file (it is a character device). Read only reads regular files; nothing was read.');
  });
});

describe('Read resolution', () => {
  beforeEach(() => fx.open());

  test('declares a read of the canonical path, a path rule, and a file_io display', async () => {
    writeFiles(fx.dir, { 'src/a.ts': 'x' });
    fs.symlinkSync(nodePath.join(fx.dir, 'src/a.ts'), nodePath.join(fx.dir, 'alias.ts'));
    const execution = await fx.agent.registry.get('Read')!.tool.resolveExecution({ path: 'alias.ts', line_offset: -5 } as never);
    if (execution.isError) throw new Error('unexpected');
    const canonical = nodePath.join(fx.dir, 'src/a.ts');
    expect(execution.accesses).toEqual([{ kind: 'file', op: 'read', path: canonical }]);
    expect(execution.approvalRule).toBe(`Read(${canonical})`);
    expect(execution.display).toEqual({ kind: 'file_io', operation: 'read', path: canonical, detail: 'last 5 lines' });
    expect(execution.description).toBe('Reading src/a.ts (last 5 lines)');
    expect(execution.matchesRule!('src/**')).toBe(true);
    expect(execution.matchesRule!('lib/**')).toBe(false);
  });

  test('the description shows the configured budget and follows config changes', () => {
    const tool = fx.agent.registry.get('Read')!.tool;
    expect(tool.description).toContain('at most 50,000 characters');
    fx.app.get(IConfigService).update({ read: { maxChars: 12_345 } });
    expect(tool.description).toContain('at most 12,345 characters');
    expect(tool.description).not.toContain('${');
  });
});

describe('Read streams large files', () => {
  const LINE = 'const value = "some typical line of source text for testing";\n';

  test('head and tail of a file larger than the line-count limit read only what they return', async () => {
    const counting = countingRuntime();
    fx.open({ config: { read: { lineCountMaxBytes: 1024 * 1024 } }, runtime: counting.runtime });
    const file = nodePath.join(fx.dir, 'big.txt');
    const lines = 200_000;
    fs.writeFileSync(file, LINE.repeat(lines));
    const size = fs.statSync(file).size;
    expect(size).toBeGreaterThan(12_000_000);

    counting.reset();
    const head = await read({ path: 'big.txt', n_lines: 100 });
    expect(head.split('\n')[0]).toBe(`1\t${LINE.trimEnd()}`);
    expect(head).toContain('<system>Lines 1-100 of a 12 MB file (lines not counted past the window). Stopped at the 100-line limit; continue with line_offset=101.</system>');
    expect(counting.bytesRead()).toBeLessThan(200_000);

    counting.reset();
    const tail = await read({ path: 'big.txt', line_offset: -100 });
    expect(tail.split('\n')[0]).toBe(`-100\t${LINE.trimEnd()}`);
    expect(tail).toContain('<system>Lines -100 to -1, counted from the end of the file (-1 is the last line); the file is 12 MB, too large to number its lines from the start. End of file reached.</system>');
    expect(counting.bytesRead()).toBeLessThan(200_000);
  });

  test('under the line-count limit, the total and tail line numbers are exact', async () => {
    fx.open();
    const lines = 50_000;
    fs.writeFileSync(nodePath.join(fx.dir, 'mid.txt'), LINE.repeat(lines));
    const tail = await read({ path: 'mid.txt', line_offset: -3 });
    expect(tail).toBe(
      [49_998, 49_999, 50_000].map((n) => `${n}\t${LINE.trimEnd()}`).join('\n') + '\n<system>Lines 49998-50000 of 50,000. End of file reached.</system>',
    );
  });

  test('a 5 MB line without newlines returns one cut line', async () => {
    fx.open();
    fs.writeFileSync(nodePath.join(fx.dir, 'one.txt'), 'y'.repeat(5_000_000));
    const out = await read({ path: 'one.txt' });
    expect(out).toBe(`1\t${'y'.repeat(2000)} [...line truncated: 5,000,000 bytes in total]\n<system>Line 1 of 1. End of file reached. Line 1 was longer than 2,000 characters and cut.</system>`);
  });

  test('windows agree with a plain split at every chunk boundary', async () => {
    fx.open({ config: { read: { maxChars: 1_000_000, maxLineChars: 100_000 } } });
    // Deterministic pseudo-random line lengths, crossing the 64 KiB read chunks in many places.
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    const lines = Array.from({ length: 3000 }, (_, i) => `${i}:` + 'abcdefghij'.repeat(next() % 60));
    fs.writeFileSync(nodePath.join(fx.dir, 'r.txt'), lines.join('\n'));
    for (let trial = 0; trial < 25; trial++) {
      const offset = (next() % 3100) + 1;
      const count = (next() % 400) + 1;
      const out = await read({ path: 'r.txt', line_offset: offset, n_lines: count });
      const body = out.split('\n').slice(0, -1);
      const expected = lines.slice(offset - 1, offset - 1 + count).map((l, i) => `${offset + i}\t${l}`);
      expect(body).toEqual(expected);
      const tailCount = (next() % 500) + 1;
      const tail = (await read({ path: 'r.txt', line_offset: -tailCount })).split('\n').slice(0, -1);
      expect(tail).toEqual(lines.slice(-tailCount).map((l, i) => `${lines.length - Math.min(tailCount, lines.length) + i + 1}\t${l}`));
    }
  });
});

describe('Read of a small file', () => {
  test('is one read of the file: the sniff, the window and the stale-guard hash share it, head and tail alike', async () => {
    const counting = countingRuntime();
    fx.open({ runtime: counting.runtime });
    const text = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    writeFiles(fx.dir, { 'small.txt': text });
    for (const args of [{ path: 'small.txt' }, { path: 'small.txt', line_offset: -3 }, { path: 'small.txt', line_offset: 50, n_lines: 2 }]) {
      counting.reset();
      const out = await read(args);
      expect(out).toContain('line ');
      expect({ reads: counting.reads(), bytes: counting.bytesRead() }).toEqual({ reads: 1, bytes: text.length });
    }
    // The hash of that one read is what Write's stale guard checks: an Edit after this Read goes through.
    const edit = await callTool(fx.agent, 'Edit', { path: 'small.txt', old_string: 'line 100\n', new_string: 'last\n' });
    expect(edit.isError).toBeFalsy();
    expect(fs.readFileSync(nodePath.join(fx.dir, 'small.txt'), 'utf8').endsWith('line 99\nlast\n')).toBe(true);
  });

  test('a Read that runs alone reads it synchronously; Reads in flight together read through the thread pool', async () => {
    fx.open();
    const files = Array.from({ length: 6 }, (_, i) => `f${i}.txt`);
    writeFiles(fx.dir, Object.fromEntries(files.map((name, i) => [name, `file ${i}\nend\n`])));
    const readSync = jest.spyOn(nodeFs, 'readSync');
    const fstatSync = jest.spyOn(nodeFs, 'fstatSync');
    try {
      // Alone: no thread-pool round trip for the fstat or the read (each about a sixth of a small Read).
      expect(await read({ path: 'f0.txt' })).toBe('1\tfile 0\n2\tend\n<system>Lines 1-2 of 2. End of file reached.</system>');
      expect({ readSync: readSync.mock.calls.length, fstatSync: fstatSync.mock.calls.length }).toEqual({ readSync: 1, fstatSync: 1 });
      readSync.mockClear();
      fstatSync.mockClear();
      // A batch of six: the first starts alone, the others start while it waits for its open, so
      // their I/O overlaps instead of adding up on the event loop.
      const results = await fx.agent.executor.execute(files.map((path, i) => ({ id: `r${i}`, name: 'Read', arguments: JSON.stringify({ path }) })));
      expect(results.map((r) => String(r.output).split('\n')[0])).toEqual(files.map((_, i) => `1\tfile ${i}`));
      expect(readSync.mock.calls.length).toBeLessThanOrEqual(1);
      expect(fstatSync.mock.calls.length).toBeLessThanOrEqual(1);
    } finally {
      readSync.mockRestore();
      fstatSync.mockRestore();
    }
  });

  test('files around the size of the first read agree with a plain split, with and without a byte-order mark', async () => {
    fx.open({ config: { read: { maxChars: 1_000_000, maxLineChars: 100_000 } } });
    const chunk = 64 * 1024;
    for (const size of [chunk - 1, chunk, chunk + 1, chunk + 7, 2 * chunk + 1]) {
      for (const bom of [false, true]) {
        // Lines of 1 to 97 characters, filled up to exactly `size` bytes.
        const lines: string[] = [];
        let bytes = bom ? 3 : 0;
        for (let i = 0; bytes < size; i++) {
          const line = `${i}:` + 'x'.repeat((i * 37) % 90);
          const room = size - bytes - 1;
          const kept = line.slice(0, Math.max(0, room));
          lines.push(kept);
          bytes += kept.length + 1;
        }
        const body = lines.join('\n') + '\n';
        const file = Buffer.concat([bom ? Buffer.from([0xef, 0xbb, 0xbf]) : Buffer.alloc(0), Buffer.from(body)]);
        expect(file.length).toBe(size);
        fs.writeFileSync(nodePath.join(fx.dir, 'edge.txt'), file);
        const whole = (await read({ path: 'edge.txt', n_lines: 100_000 })).split('\n').slice(0, -1);
        expect(whole).toEqual(lines.map((l, i) => `${i + 1}\t${l}`));
        const tail = (await read({ path: 'edge.txt', line_offset: -5 })).split('\n').slice(0, -1);
        expect(tail).toEqual(lines.slice(-5).map((l, i) => `${lines.length - 5 + i + 1}\t${l}`));
      }
    }
  });
});

describe('Read at the edges of a window', () => {
  test('a window that ends on the last line says the end was reached', async () => {
    fx.open();
    writeFiles(fx.dir, { 'a.txt': 'a\nb\n' });
    expect(await read({ path: 'a.txt', n_lines: 2 })).toBe('1\ta\n2\tb\n<system>Lines 1-2 of 2. End of file reached.</system>');
    expect(await read({ path: 'a.txt', line_offset: 2, n_lines: 1 })).toBe('2\tb\n<system>Line 2 of 2. End of file reached.</system>');
  });
});

describe('Read holds memory by the size of the file, not of its read chunk', () => {
  test('many reads of a small file in flight at once hold buffers of its size, head and tail alike', async () => {
    const dir = makeTempDir('read-buffers-');
    try {
      const file = nodePath.join(dir, 'small.txt');
      fs.writeFileSync(file, 'alpha\nbeta\ngamma\n');
      const size = fs.statSync(file).size;
      const handle = await fs.promises.open(file, 'r');
      // Every read waits until all of them have allocated their buffers, so all are held at once.
      const reads = 200;
      let waiting = 0;
      let release!: () => void;
      const allWaiting = new Promise<void>((resolve) => (release = resolve));
      let measured: number | undefined;
      const before = process.memoryUsage().arrayBuffers;
      const gated: ReadableHandle = {
        read: async (buffer, offset, length, position) => {
          if (++waiting === reads) {
            measured = process.memoryUsage().arrayBuffers - before;
            release();
          }
          await allWaiting;
          return handle.read(buffer, offset, length, position);
        },
      };
      const limits = { maxLines: 100, maxChars: 10_000, maxLineChars: 1_000, countAll: true };
      const windows = await Promise.all(
        Array.from({ length: reads }, (_, i) => (i % 2 ? readTail(gated, size, { ...limits, count: 2 }) : readForward(gated, size, { ...limits, startLine: 1 }))),
      );
      await handle.close();
      expect(windows[0]!.lines.map((l) => l.text)).toEqual(['alpha', 'beta', 'gamma']);
      expect(windows[1]!.lines.map((l) => l.text)).toEqual(['beta', 'gamma']);
      // A 64 KiB chunk each would be 12.5 MiB.
      expect(measured).toBeLessThan(reads * 4096);
    } finally {
      removeDir(dir);
    }
  });
});
