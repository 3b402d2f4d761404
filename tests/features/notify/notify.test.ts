import { IClock } from '../../../src/services/clock/clock';
import { ISessionInteractionService, type NotificationRequest } from '../../../src/services/interaction/interaction';
import { createNotifyFeature } from '../../../src/features/notify/notifyFeature';
import { cleanBody, cleanTitle } from '../../../src/features/notify/notify';
import { useAgent } from '../../helpers/agentHarness';
import { FakeHost } from '../../helpers/fakeHost';

class FakeClock implements IClock {
  ms = 1_000_000;
  now(): number {
    return this.ms;
  }
  setTimer(): never {
    throw new Error('This test sets no timers.');
  }
  advance(seconds: number): void {
    this.ms += seconds * 1000;
  }
}

const clock = new FakeClock();
const fixture = useAgent({ features: [createNotifyFeature()], appOverrides: (c) => c.rebind(IClock).toConstantValue(clock) });

function receiving(): FakeHost {
  return new FakeHost({ notification: () => undefined });
}

const notes = (host: FakeHost) => host.requests.filter((r): r is NotificationRequest => r.kind === 'notification').map((r) => r.title);

describe('NotifyUser through the executor', () => {
  test('sends the notification to the host, stripped of control characters, without asking for approval', async () => {
    const host = receiving();
    const harness = fixture.open({ interactions: host });
    const result = await harness.call('NotifyUser', { title: 'Tests \u001b[31mgreen\u001b[0m\non main', body: 'all 12\u0007 suites\r\npassed\u202e', severity: 'warning' });
    expect([result.outcome, result.isError, result.output, result.structuredContent]).toEqual(['executed', false, 'sent: true', { sent: true }]);
    expect(host.requests).toEqual([{ kind: 'notification', title: 'Tests [31mgreen[0m on main', body: 'all 12 suites\npassed', severity: 'warning' }]);
  });

  test('the same title and body, or the same dedupe_key, within notify.dedupeSeconds is suppressed with sent: false and the reason', async () => {
    const host = receiving();
    const harness = fixture.open({ interactions: host });
    expect((await harness.call('NotifyUser', { title: 'Build done' })).output).toBe('sent: true');
    clock.advance(42);
    const again = await harness.call('NotifyUser', { title: 'Build done' });
    expect([again.isError, again.output, again.structuredContent]).toEqual([false, 'sent: false (same title and body 42 s ago)', { sent: false, reason: 'same title and body 42 s ago' }]);
    expect((await harness.call('NotifyUser', { title: 'Deploy ready', dedupe_key: 'deploy' })).output).toBe('sent: true');
    clock.advance(10);
    expect((await harness.call('NotifyUser', { title: 'Deploy ready again', dedupe_key: 'deploy' })).output).toBe('sent: false (same notification 10 s ago; dedupe_key deploy)');
    clock.advance(300);
    expect((await harness.call('NotifyUser', { title: 'Build done' })).output).toBe('sent: true');
    expect((await harness.call('NotifyUser', { title: 'Deploy ready again', dedupe_key: 'deploy' })).output).toBe('sent: true');
    expect(notes(host)).toEqual(['Build done', 'Deploy ready', 'Build done', 'Deploy ready again']);
  });

  test('at most notify.perMinute per agent in any minute; another agent of the App has its own count', async () => {
    const host = receiving();
    const harness = fixture.open({ interactions: host, config: { notify: { perMinute: 2 } } });
    expect((await harness.call('NotifyUser', { title: 'one' })).output).toBe('sent: true');
    clock.advance(20);
    expect((await harness.call('NotifyUser', { title: 'two' })).output).toBe('sent: true');
    clock.advance(10);
    expect((await harness.call('NotifyUser', { title: 'three' })).output).toBe(
      'sent: false (2 notifications in the last minute (notify.perMinute 2); the next can go in 30 s)',
    );
    const other = harness.app.createAgent({ cwd: fixture.dir, overrides: (c) => c.rebind(ISessionInteractionService).toConstantValue(host) });
    const [fromOther] = await other.executor.execute([{ id: 'x', name: 'NotifyUser', arguments: JSON.stringify({ title: 'from the other agent' }) }]);
    expect(fromOther!.output).toBe('sent: true');
    clock.advance(30);
    expect((await harness.call('NotifyUser', { title: 'three' })).output).toBe('sent: true');
  });

  test('calls of one batch run side by side, and still only notify.perMinute go out', async () => {
    const host = receiving();
    const harness = fixture.open({ interactions: host });
    const results = await harness.agent.executor.execute(
      [1, 2, 3, 4, 5].map((n) => ({ id: `n${n}`, name: 'NotifyUser', arguments: JSON.stringify({ title: `note ${n}` }) })),
    );
    expect(results.map((r) => (r.output as string).slice(0, 11))).toEqual(['sent: true', 'sent: true', 'sent: true', 'sent: false', 'sent: false']);
    expect(results.every((r) => !r.isError)).toBe(true);
    expect(notes(host)).toHaveLength(3);
  });

  test('a host failure is an error with the reason, and does not count against the limits', async () => {
    let fail = true;
    const host = new FakeHost({
      notification: () => {
        if (fail) throw new Error('the desktop notifier is gone');
      },
    });
    const harness = fixture.open({ interactions: host });
    const failed = await harness.call('NotifyUser', { title: 'Build done' });
    expect([failed.isError, failed.output]).toEqual([true, 'Could not notify the user: the desktop notifier is gone.']);
    fail = false;
    expect((await harness.call('NotifyUser', { title: 'Build done' })).output).toBe('sent: true');
  });

  test('a title of control characters only is refused in resolve', async () => {
    const harness = fixture.open({ interactions: receiving() });
    const result = await harness.call('NotifyUser', { title: '\u001b\u0007' });
    expect([result.isError, result.output]).toEqual([true, 'The title has no printable characters: give a short line of plain text.']);
  });

  test('is inactive without a host that takes notifications', async () => {
    const harness = fixture.open({ interactions: new FakeHost({ approval: () => ({ decision: 'approve' }) }) });
    expect(harness.agent.registry.get('NotifyUser')).toBeUndefined();
    expect((await harness.call('NotifyUser', { title: 'x' })).output).toContain('Tool "NotifyUser" exists but is not active');
  });
});

describe('notification text cleaning', () => {
  test.each<[string, string, string]>([
    ['ANSI escapes lose their ESC', '\u001b[2Jcleared', '[2Jcleared'],
    ['line breaks and tabs become spaces in a title', 'a\r\nb\tc', 'a b c'],
    ['C1 controls and DEL', 'a\u0085b\u007fc\u009bd', 'abcd'],
    ['bidi overrides and isolates', 'safe\u202etxt.exe\u2066', 'safetxt.exe'],
  ])('%s', (_name, input, expected) => {
    expect(cleanTitle(input)).toBe(expected);
  });

  test('a body keeps its line breaks and loses the rest', () => {
    expect(cleanBody('  one\r\ntwo\u0000\rthree\t4  ')).toBe('one\ntwo\nthree 4');
  });
});
