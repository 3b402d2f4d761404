import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { z } from 'zod';
import { ToolAccesses } from '../../../src/tool/accesses';
import { expectPairedEvents, useAgent } from '../../helpers/agentHarness';
import { deferred, waitFor } from '../../helpers/async';
import { FakeHost } from '../../helpers/fakeHost';
import { makeTempDir, removeDir, writeFiles } from '../../helpers/tempDir';
import { testTool } from '../../helpers/testTools';

/**
 * Calls of a batch are resolved before any of them runs. These batches make an earlier call
 * replace a folder or file with a symbolic link (as an approved `git checkout` or `ln -s` would),
 * so the later Read or Write resolves to another place when it runs than when it was approved.
 */
const fx = useAgent({ builtins: true });
let outside = '';
beforeEach(() => {
  outside = makeTempDir('toolhost-outside-');
  writeFiles(outside, { 'notes.txt': 'OUTSIDE SECRET\n' });
});
afterEach(() => removeDir(outside));

const SwapSchema = z.object({ path: z.string(), target: z.string() });

/** Replaces `path` (a file or folder of the workspace) with a symbolic link to `target`. */
function swapTool() {
  return testTool<{ path: string; target: string }>('Swap', {
    schema: SwapSchema,
    // A write of the whole workspace: every later file call of the batch waits for it.
    accesses: () => [ToolAccesses.writeTree(fx.dir)],
    execute: ({ path, target }) => {
      const at = nodePath.join(fx.dir, path);
      fs.rmSync(at, { recursive: true, force: true });
      fs.symlinkSync(target, at);
      return { output: `swapped ${path}` };
    },
  });
}

const DO_NOT_RETRY = 'Do not retry the same call; choose a different approach or ask the user how to proceed.';

describe('a call is resolved again right before it runs', () => {
  test('a Read under a folder an earlier call swapped for a link to outside ends resolution-failed and prints nothing of it', async () => {
    writeFiles(fx.dir, { 'docs/notes.txt': 'inside\n' });
    const host = new FakeHost({ approval: () => ({ decision: 'approve' }) });
    const h = fx.open({ tools: [swapTool()], interactions: host });
    const results = await h.agent.executor.execute([
      { id: 'swap', name: 'Swap', arguments: { path: 'docs', target: outside } },
      { id: 'read', name: 'Read', arguments: { path: 'docs/notes.txt' } },
    ]);
    expect(results.map((r) => [r.outcome, r.output])).toEqual([
      ['executed', 'swapped docs'],
      [
        'resolution-failed',
        `"docs/notes.txt" is a symbolic link that resolves to "${outside}/notes.txt", outside the working directory. To read a file there, pass that absolute path explicitly.`,
      ],
    ]);
    // Only the swap needed the host: the Read was an inside read when it was approved.
    expect(host.approvals.map((r) => r.toolName)).toEqual(['Swap']);
    expectPairedEvents(h.events, ['swap', 'read']);
  });

  test('a Read that now leads into a folder an ask rule covers is approved again, by the host, for the new path', async () => {
    writeFiles(fx.dir, { 'docs/notes.txt': 'inside\n', 'private/notes.txt': 'PRIVATE\n' });
    const host = new FakeHost({ approval: (request) => ({ decision: request.toolName === 'Swap' ? 'approve' : 'reject' }) });
    const h = fx.open({ tools: [swapTool()], interactions: host, config: { approval: { ask: [`Read(${fx.dir}/private/**)`] } } });
    const results = await h.agent.executor.execute([
      { id: 'swap', name: 'Swap', arguments: { path: 'docs', target: nodePath.join(fx.dir, 'private') } },
      { id: 'read', name: 'Read', arguments: { path: 'docs/notes.txt' } },
    ]);
    expect(results[1]).toMatchObject({ outcome: 'denied', output: `Tool "Read" was not run: the user rejected it. ${DO_NOT_RETRY}` });
    expect(host.approvals.map((r) => [r.toolName, r.approvalRule])).toEqual([
      ['Swap', 'Swap'],
      ['Read', `Read(${fx.dir}/private/notes.txt)`],
    ]);
    expect(host.approvals[1]!.display).toEqual({ kind: 'file_io', operation: 'read', path: `${fx.dir}/private/notes.txt` });
    expectPairedEvents(h.events, ['swap', 'read']);
  });

  test('when the host approves the new path, the call runs with the new resolution', async () => {
    writeFiles(fx.dir, { 'docs/notes.txt': 'inside\n', 'private/notes.txt': 'PRIVATE\n' });
    const host = new FakeHost({ approval: () => ({ decision: 'approve' }) });
    const h = fx.open({ tools: [swapTool()], interactions: host, config: { approval: { ask: [`Read(${fx.dir}/private/**)`] } } });
    const results = await h.agent.executor.execute([
      { id: 'swap', name: 'Swap', arguments: { path: 'docs', target: nodePath.join(fx.dir, 'private') } },
      { id: 'read', name: 'Read', arguments: { path: 'docs/notes.txt' } },
    ]);
    expect(results[1]).toMatchObject({ outcome: 'executed', output: '1\tPRIVATE\n<system>Line 1 of 1. End of file reached.</system>' });
    expect(host.approvals.map((r) => r.approvalRule)).toEqual(['Swap', `Read(${fx.dir}/private/notes.txt)`]);
  });

  test('a Read of a file an earlier call swapped for a link to .env is refused as a secret', async () => {
    writeFiles(fx.dir, { 'notes.txt': 'harmless\n', '.env': 'API_KEY=hunter2\n' });
    const host = new FakeHost({ approval: () => ({ decision: 'approve' }) });
    const h = fx.open({ tools: [swapTool()], interactions: host });
    const results = await h.agent.executor.execute([
      { id: 'swap', name: 'Swap', arguments: { path: 'notes.txt', target: `${fx.dir}/.env` } },
      { id: 'read', name: 'Read', arguments: { path: 'notes.txt' } },
    ]);
    expect(results[1]).toMatchObject({
      outcome: 'resolution-failed',
      output: `"notes.txt" is a symbolic link to "${fx.dir}/.env", which matches a sensitive-file pattern (env file, credentials, private key). Access is blocked to protect secrets.`,
    });
    expectPairedEvents(h.events, ['swap', 'read']);
  });

  test('a Write under a folder swapped for a link to outside writes nothing there', async () => {
    fs.mkdirSync(nodePath.join(fx.dir, 'out'));
    const host = new FakeHost({ approval: () => ({ decision: 'approve' }) });
    const h = fx.open({ tools: [swapTool()], interactions: host });
    const results = await h.agent.executor.execute([
      { id: 'swap', name: 'Swap', arguments: { path: 'out', target: outside } },
      { id: 'write', name: 'Write', arguments: { path: 'out/planted.txt', content: 'planted' } },
    ]);
    expect(results[1]).toMatchObject({
      outcome: 'resolution-failed',
      output: `"out/planted.txt" is a symbolic link that resolves to "${outside}/planted.txt", outside the working directory. To write or edit a file there, pass that absolute path explicitly.`,
    });
    expect(fs.readdirSync(outside)).toEqual(['notes.txt']);
    // The Write was approved once, for the path it had before the swap; it was not asked again.
    expect(host.approvals.map((r) => r.approvalRule)).toEqual(['Swap', `Write(${fx.dir}/out/planted.txt)`]);
  });

  test('a Write under a folder swapped for a link into a folder a deny rule protects is denied by that rule', async () => {
    fs.mkdirSync(nodePath.join(fx.dir, 'drafts'));
    fs.mkdirSync(nodePath.join(fx.dir, 'protected'));
    const rule = `Write(${fx.dir}/protected/**)`;
    const host = new FakeHost({ approval: () => ({ decision: 'approve' }) });
    const h = fx.open({ tools: [swapTool()], interactions: host, config: { approval: { deny: [rule] } } });
    const results = await h.agent.executor.execute([
      { id: 'swap', name: 'Swap', arguments: { path: 'drafts', target: nodePath.join(fx.dir, 'protected') } },
      { id: 'write', name: 'Write', arguments: { path: 'drafts/x.txt', content: 'overwritten' } },
    ]);
    expect(results[1]).toMatchObject({
      outcome: 'denied',
      output: `Tool "Write" was denied by the approval rule "${rule}" (config approval.deny). ${DO_NOT_RETRY}`,
    });
    expect(fs.readdirSync(nodePath.join(fx.dir, 'protected'))).toEqual([]);
    expectPairedEvents(h.events, ['swap', 'write']);
  });

  test('a call whose resolution did not change runs as it was approved, without asking again', async () => {
    const host = new FakeHost({ approval: () => ({ decision: 'approve' }) });
    const h = fx.open({ interactions: host });
    const [result] = await h.agent.executor.execute([{ id: 'w', name: 'Write', arguments: { path: 'a.txt', content: 'a' } }]);
    expect(result).toMatchObject({ outcome: 'executed', isError: false });
    expect(fs.readFileSync(nodePath.join(fx.dir, 'a.txt'), 'utf8')).toBe('a');
    expect(host.approvals).toHaveLength(1);
  });
});

describe('a tool deactivated while its call waits', () => {
  test('a Write disabled while it waited for approval does not run', async () => {
    const answer = deferred();
    const host = new FakeHost({ approval: async () => (await answer.promise, { decision: 'approve' }) });
    const h = fx.open({ interactions: host });
    const pending = h.agent.executor.execute([{ id: 'w', name: 'Write', arguments: { path: 'a.txt', content: 'a' } }]);
    await waitFor(() => host.approvals.length === 1, { what: 'the approval request' });
    h.app.config.update({ tools: { disabled: ['Write'] } });
    await waitFor(() => h.agent.registry.get('Write') === undefined, { what: 'Write to be deactivated' });
    answer.resolve();
    const [result] = await pending;
    expect(result).toMatchObject({ outcome: 'vetoed', isError: true, output: 'Tool "Write" was disabled while the call waited to run, so it was not run.' });
    expect(fs.existsSync(nodePath.join(fx.dir, 'a.txt'))).toBe(false);
    expectPairedEvents(h.events, ['w']);
  });
});

describe('onWillExecuteTool listeners hear of accesses a recheck changed', () => {
  /** A tool whose first resolution writes first.txt and every later one second.txt. */
  function shiftingTool() {
    let resolutions = 0;
    return testTool('Shift', { accesses: () => [ToolAccesses.writeFile(nodePath.join(fx.dir, resolutions++ === 0 ? 'first.txt' : 'second.txt'))] });
  }

  test('a listener is told the new accesses, and the call waits for the work it returns', async () => {
    const host = new FakeHost({ approval: () => ({ decision: 'approve' }) });
    const h = fx.open({ tools: [shiftingTool()], interactions: host });
    const seen: string[] = [];
    const lock = deferred();
    h.agent.executor.onWillExecuteTool((ctx) => {
      seen.push(`will ${(ctx.accesses[0] as { path: string }).path}`);
      ctx.onAccessesChanged((accesses) => {
        seen.push(`changed ${(accesses[0] as { path: string }).path}`);
        return lock.promise;
      });
    });
    const running = h.agent.executor.execute([{ id: 's', name: 'Shift', arguments: {} }]);
    await waitFor(() => seen.length === 2, { what: 'the listener to hear of the change' });
    expect(seen).toEqual([`will ${fx.dir}/first.txt`, `changed ${fx.dir}/second.txt`]);
    expect(h.events.filter((e) => e.startsWith('finished'))).toEqual([]);
    lock.resolve();
    const [result] = await running;
    expect(result).toMatchObject({ outcome: 'executed', output: 'Shift done' });
  });

  test('a listener that throws ends the call as vetoed, with its message', async () => {
    const host = new FakeHost({ approval: () => ({ decision: 'approve' }) });
    const h = fx.open({ tools: [shiftingTool()], interactions: host });
    h.agent.executor.onWillExecuteTool((ctx) => ctx.onAccessesChanged(() => Promise.reject(new Error('no lock for you'))));
    const [result] = await h.agent.executor.execute([{ id: 's', name: 'Shift', arguments: {} }]);
    expect(result).toMatchObject({ outcome: 'vetoed', output: 'An onWillExecuteTool hook failed for tool "Shift" when its accesses changed: no lock for you' });
  });
});
