import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import type { Agent } from '../../../src/scopes/agentScope';
import { Feature } from '../../../src/di/feature';
import { IConfigService } from '../../../src/services/config/config';
import { sha256Hex } from '../../../src/base/fs/fileHash';
import { IAgentFileStateService } from '../../../src/tools/os/contract';
import { createLocalRuntime } from '../../../src/services/runtime/localRuntime';
import { IAgentRuntimeService } from '../../../src/services/runtime/runtime';
import { readTool } from '../../../src/tools/os/read/readTool';
import { readConfig } from '../../../src/tools/os/osConfig';
import { callTool, text, useAgent } from '../../helpers/agentHarness';
import { writeFiles } from '../../helpers/tempDir';

const fx = useAgent({ builtins: true });

const at = (rel: string) => nodePath.join(fx.dir, rel);
const contentOf = (rel: string) => fs.readFileSync(at(rel), 'utf8');

async function call(name: string, input: Record<string, unknown>, on: Agent = fx.agent): Promise<{ output: string; isError: boolean }> {
  const result = await callTool(on, name, input);
  return { output: text(result), isError: result.isError === true };
}

/** A whole-second modification time, so it can be set back exactly (utimes has no nanoseconds). */
const PINNED = new Date('2024-05-01T12:00:00Z');

/** Writes files with a pinned modification time. */
function writePinned(files: Record<string, string>): void {
  writeFiles(fx.dir, files);
  for (const rel of Object.keys(files)) fs.utimesSync(at(rel), PINNED, PINNED);
}

/** Rewrites a file behind the agent's back, keeping its size and its (pinned) modification time. */
function tamper(rel: string, content: string): void {
  const before = fs.statSync(at(rel));
  expect(Buffer.byteLength(content)).toBe(before.size);
  fs.writeFileSync(at(rel), content);
  fs.utimesSync(at(rel), PINNED, PINNED);
  const after = fs.statSync(at(rel));
  expect([after.size, after.mtimeMs]).toEqual([before.size, before.mtimeMs]);
}

const notRead = (p: string) => ({ output: `"${p}" has not been read by this agent yet. Read it before writing to it.`, isError: true });
const changed = (p: string) => ({ output: `"${p}" has changed on disk since this agent last read it. Read it again before writing to it.`, isError: true });

describe('the stale-write guard', () => {
  beforeEach(() => fx.open());

  test('an existing file the agent has not read is refused, for Write (both modes) and Edit, and left unchanged', async () => {
    writeFiles(fx.dir, { 'a.txt': 'keep me\n' });
    expect(await call('Write', { path: 'a.txt', content: 'x' })).toEqual(notRead('a.txt'));
    expect(await call('Write', { path: 'a.txt', content: 'x', mode: 'append' })).toEqual(notRead('a.txt'));
    expect(await call('Edit', { path: 'a.txt', old_string: 'keep', new_string: 'lose' })).toEqual(notRead('a.txt'));
    expect(contentOf('a.txt')).toBe('keep me\n');
  });

  test('a new file is never blocked', async () => {
    expect((await call('Write', { path: 'fresh/new.txt', content: 'x' })).isError).toBe(false);
    expect((await call('Write', { path: 'other.txt', content: 'x', mode: 'append' })).isError).toBe(false);
  });

  test('read, then write, passes', async () => {
    writeFiles(fx.dir, { 'a.txt': 'one\n' });
    await call('Read', { path: 'a.txt' });
    expect(await call('Write', { path: 'a.txt', content: 'two\n' })).toEqual({ output: 'Wrote 4 bytes to a.txt (replaced the previous 4 bytes).', isError: false });
  });

  test('a change on disk after the Read is caught by the content hash, even with the same size and mtime', async () => {
    writePinned({ 'a.txt': 'alpha\n' });
    await call('Read', { path: 'a.txt' });
    tamper('a.txt', 'ALPHA\n');
    expect(await call('Write', { path: 'a.txt', content: 'mine' })).toEqual(changed('a.txt'));
    expect(await call('Edit', { path: 'a.txt', old_string: 'ALPHA', new_string: 'beta' })).toEqual(changed('a.txt'));
    expect(contentOf('a.txt')).toBe('ALPHA\n');
    // Reading it again clears the way.
    await call('Read', { path: 'a.txt' });
    expect((await call('Edit', { path: 'a.txt', old_string: 'ALPHA', new_string: 'beta' })).isError).toBe(false);
  });

  test('a touch that changes only the mtime is not a change', async () => {
    writeFiles(fx.dir, { 'a.txt': 'same\n' });
    await call('Read', { path: 'a.txt' });
    fs.utimesSync(at('a.txt'), new Date(2001, 1, 1), new Date(2001, 1, 1));
    expect((await call('Write', { path: 'a.txt', content: 'new' })).isError).toBe(false);
  });

  test('a change of size is a change', async () => {
    writeFiles(fx.dir, { 'a.txt': 'short\n' });
    await call('Read', { path: 'a.txt' });
    fs.appendFileSync(at('a.txt'), 'more\n');
    expect(await call('Write', { path: 'a.txt', content: 'x', mode: 'append' })).toEqual(changed('a.txt'));
  });

  test('the check runs when the call executes, not when it is resolved', async () => {
    writePinned({ 'a.txt': 'v1\n' });
    await call('Read', { path: 'a.txt' });
    const execution = await fx.agent.registry.get('Write')!.tool.resolveExecution({ path: 'a.txt', content: 'mine' } as never);
    if (execution.isError) throw new Error('unexpected');
    tamper('a.txt', 'v2\n');
    const result = await execution.execute({ toolCallId: 'c', signal: new AbortController().signal, onUpdate: () => undefined, metadata: {} });
    expect({ output: result.output, isError: result.isError }).toEqual(changed('a.txt'));
  });

  test("the agent's own Write and Edit count as reading: Edit after Write, Write after Edit, Edit after Edit", async () => {
    writeFiles(fx.dir, { 'a.txt': 'start\n' });
    await call('Read', { path: 'a.txt' });
    expect((await call('Write', { path: 'a.txt', content: 'one two\n' })).isError).toBe(false);
    expect((await call('Edit', { path: 'a.txt', old_string: 'one', new_string: 'uno' })).isError).toBe(false);
    expect((await call('Edit', { path: 'a.txt', old_string: 'two', new_string: 'dos' })).isError).toBe(false);
    expect((await call('Write', { path: 'a.txt', content: '!\n', mode: 'append' })).isError).toBe(false);
    expect(contentOf('a.txt')).toBe('uno dos\n!\n');
    // A file the agent created itself can be edited right away.
    await call('Write', { path: 'b.txt', content: 'b\n' });
    expect((await call('Edit', { path: 'b.txt', old_string: 'b', new_string: 'B' })).isError).toBe(false);
    // And a change on disk after the agent's own write is still caught.
    fs.utimesSync(at('b.txt'), PINNED, PINNED);
    tamper('b.txt', 'X\n');
    expect(await call('Edit', { path: 'b.txt', old_string: 'X', new_string: 'Y' })).toEqual(changed('b.txt'));
  });

  test('a partial Read (a line window, or the tail) counts as having read the file', async () => {
    writeFiles(fx.dir, { 'a.txt': 'l1\nl2\nl3\nl4\n', 'b.txt': 'm1\nm2\nm3\n' });
    await call('Read', { path: 'a.txt', line_offset: 2, n_lines: 1 });
    await call('Read', { path: 'b.txt', line_offset: -1 });
    expect((await call('Edit', { path: 'a.txt', old_string: 'l4', new_string: 'L4' })).isError).toBe(false);
    expect((await call('Edit', { path: 'b.txt', old_string: 'm1', new_string: 'M1' })).isError).toBe(false);
  });

  test('Read records the hash of the whole file, from a head, a tail and an empty file', async () => {
    const body = Array.from({ length: 5000 }, (_, i) => `line ${i}`).join('\n');
    writeFiles(fx.dir, { 'h.txt': body, 't.txt': body, 'e.txt': '' });
    await call('Read', { path: 'h.txt', n_lines: 3 });
    await call('Read', { path: 't.txt', line_offset: -3 });
    await call('Read', { path: 'e.txt' });
    const state = fx.agent.get(IAgentFileStateService);
    expect(state.get(at('h.txt'))?.sha256).toBe(sha256Hex(body));
    expect(state.get(at('t.txt'))?.sha256).toBe(sha256Hex(body));
    expect(state.get(at('e.txt'))).toMatchObject({ size: 0, sha256: sha256Hex('') });
  });

  test('a binary file the agent tried to Read may be overwritten; a file Read could not find is not recorded', async () => {
    writeFiles(fx.dir, { 'i.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]) as unknown as string });
    expect((await call('Read', { path: 'i.png' })).isError).toBe(true);
    expect((await call('Write', { path: 'i.png', content: 'not an image any more' })).isError).toBe(false);
    expect((await call('Read', { path: 'gone.txt' })).isError).toBe(true);
    expect(fx.agent.get(IAgentFileStateService).get(at('gone.txt'))).toBeUndefined();
  });

  test('records are keyed by canonical path: another spelling or a symlink of the same file counts', async () => {
    writeFiles(fx.dir, { 'src/a.txt': 'x\n' });
    fs.symlinkSync(at('src/a.txt'), at('link.txt'));
    await call('Read', { path: './src/../src/a.txt' });
    expect((await call('Edit', { path: 'link.txt', old_string: 'x', new_string: 'y' })).isError).toBe(false);
    expect((await call('Write', { path: at('src/a.txt'), content: 'z\n' })).isError).toBe(false);
  });

  test("another agent's Read does not count", async () => {
    writeFiles(fx.dir, { 'a.txt': 'x\n' });
    const other = fx.app.createAgent({ cwd: fx.dir });
    await call('Read', { path: 'a.txt' }, other);
    expect(await call('Write', { path: 'a.txt', content: 'y' })).toEqual(notRead('a.txt'));
    expect((await call('Write', { path: 'a.txt', content: 'y' }, other)).isError).toBe(false);
  });

  test('a runtime switch forgets what was read', async () => {
    writeFiles(fx.dir, { 'a.txt': 'x\n' });
    await call('Read', { path: 'a.txt' });
    fx.agent.get(IAgentRuntimeService).switch(createLocalRuntime());
    expect(await call('Write', { path: 'a.txt', content: 'y' })).toEqual(notRead('a.txt'));
  });

  test('a refused or failed write records nothing', async () => {
    writeFiles(fx.dir, { 'a.txt': 'x\n' });
    await call('Write', { path: 'a.txt', content: 'y' });
    expect(fx.agent.get(IAgentFileStateService).get(at('a.txt'))).toBeUndefined();
  });

  test('config staleGuard.enabled=false turns the guard off, and can be changed at run time', async () => {
    await fx.app.dispose();
    fx.open({ config: { staleGuard: { enabled: false } } });
    writeFiles(fx.dir, { 'a.txt': 'x\n' });
    expect((await call('Write', { path: 'a.txt', content: 'y\n' })).isError).toBe(false);
    fx.app.get(IConfigService).update({ staleGuard: { enabled: true } });
    writeFiles(fx.dir, { 'b.txt': 'x\n' });
    expect(await call('Write', { path: 'b.txt', content: 'y' })).toEqual(notRead('b.txt'));
  });
});

describe('the stale-write guard on files larger than read.lineCountMaxBytes', () => {
  beforeEach(() => fx.open({ config: { read: { lineCountMaxBytes: 1024 } } }));

  test('Read does not hash them; size and timestamps decide, and a rewrite that restores the mtime still changes ctime', async () => {
    const body = 'abcdefghij\n'.repeat(1000);
    writePinned({ 'big.txt': body, 'big2.txt': body });
    await call('Read', { path: 'big.txt', n_lines: 1 });
    await call('Read', { path: 'big2.txt', n_lines: 1 });
    expect(fx.agent.get(IAgentFileStateService).get(at('big.txt'))).toEqual(expect.not.objectContaining({ sha256: expect.anything() }));
    expect((await call('Edit', { path: 'big.txt', old_string: 'abcdefghij\nabcdefghij\nabcdefghij\nabcdefghij\nabcdefghij\nabcdefghij\nabcdefghij\nabcdefghij\nabcdefghij\nabcdefghij\n'.repeat(100), new_string: 'x' })).isError).toBe(false);
    // The ctime moves on any write, and utimes cannot set it back.
    const seen = fx.agent.get(IAgentFileStateService).get(at('big2.txt'))!;
    tamper('big2.txt', body.replace('a', 'A'));
    // The kernel's ctime clock is coarse: touch again until it has moved past the recorded value.
    while (fs.statSync(at('big2.txt')).ctimeMs === seen.ctimeMs) fs.utimesSync(at('big2.txt'), PINNED, PINNED);
    expect(await call('Write', { path: 'big2.txt', content: 'y' })).toEqual(changed('big2.txt'));
  });
});

describe('the stale-write guard service', () => {
  test('Read works in an App without Write and Edit (the guard service is optional for it)', async () => {
    // A feature of its own that brings Read and its config section, without the os feature's file-state service.
    const solo = fx.open({ builtins: false, features: [new Feature('read-only').contributeConfig(readConfig).contributeTool(readTool)] }).agent;
    writeFiles(fx.dir, { 'a.txt': 'x\n' });
    expect(text(await callTool(solo, 'Read', { path: 'a.txt' }))).toBe('1\tx\n<system>Line 1 of 1. End of file reached.</system>');
    await fx.app.dispose();
  });

  test('a record from an earlier runtime generation is dropped', async () => {
    fx.open();
    const state = fx.agent.get(IAgentFileStateService);
    const runtime = fx.agent.get(IAgentRuntimeService);
    const old = runtime.generation;
    runtime.switch(createLocalRuntime());
    state.record('/x', { size: 1, mtimeMs: 1, ctimeMs: 1, sha256: 'h' }, old);
    expect(state.get('/x')).toBeUndefined();
    state.record('/x', { size: 1, mtimeMs: 1, ctimeMs: 1, sha256: 'h' }, runtime.generation);
    expect(state.get('/x')).toEqual({ size: 1, mtimeMs: 1, ctimeMs: 1, sha256: 'h' });
  });
});
