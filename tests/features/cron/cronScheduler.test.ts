import { type ClockJump, IAgentCronService, ICronScheduler } from '../../../src/features/cron/contract';
import { createCronFeature } from '../../../src/features/cron/cronFeature';
import { createApp } from '../../../src/scopes/appScope';
import { IClock, SystemClock } from '../../../src/services/clock/clock';
import { IAgentPromptInjection, type PromptInjectionRequest } from '../../../src/services/promptInjection/promptInjection';
import { FakeClock } from '../../helpers/fakeClock';
import { prng } from '../../helpers/prng';
import { useTempDir } from '../../helpers/tempDir';

const START = Date.parse('2026-03-28T12:00:00Z');
const MINUTE = 60_000;
const dir = useTempDir();

function scheduler(clock: FakeClock) {
  const app = createApp({ features: [createCronFeature()], overrides: (c) => c.rebind(IClock).toConstantValue(clock) });
  return { app, scheduler: app.get(ICronScheduler) };
}

describe('CronScheduler', () => {
  test('runs entries in time order (against a sorted oracle), with moves and cancels, on one timer', async () => {
    const clock = new FakeClock(START);
    const { app, scheduler: s } = scheduler(clock);
    const random = prng(14);
    const wanted = new Map<string, number>();
    const fired: [string, number][] = [];
    for (let i = 0; i < 400; i++) {
      const key = `k${Math.floor(random() * 300)}`;
      const roll = random();
      if (roll < 0.15) {
        s.cancel(key);
        wanted.delete(key);
        continue;
      }
      const at = START + Math.floor(random() * 6 * 60) * MINUTE;
      s.schedule(key, at, ({ scheduledAt, now }) => {
        expect(now).toBeGreaterThanOrEqual(scheduledAt);
        fired.push([key, scheduledAt]);
      });
      wanted.set(key, at);
    }
    expect(s.size).toBe(wanted.size);
    expect(s.nextAt).toBe(Math.min(...wanted.values()));
    await clock.advance(7 * 60 * MINUTE);
    const oracle = [...wanted.entries()].sort((a, b) => a[1] - b[1]);
    expect(fired.map(([, at]) => at)).toEqual(oracle.map(([, at]) => at));
    expect(new Set(fired.map(([key]) => key))).toEqual(new Set(wanted.keys()));
    expect([s.size, clock.armed, clock.maxArmed]).toEqual([0, 0, 1]);
    await app.dispose();
  });

  test('a clock set back is reported and nothing fires early; an entry that throws does not stop the others', async () => {
    const clock = new FakeClock(START);
    const { app, scheduler: s } = scheduler(clock);
    const jumps: ClockJump[] = [];
    const errors: string[] = [];
    const fired: string[] = [];
    s.onClockJump((j) => jumps.push(j));
    s.onFireError(({ key, error }) => errors.push(`${key}: ${(error as Error).message}`));
    s.schedule('bad', START + 60 * MINUTE, () => {
      throw new Error('boom');
    });
    s.schedule('good', START + 60 * MINUTE, () => fired.push('good'));
    clock.jump(-2 * 60 * MINUTE);
    await clock.advance(10 * MINUTE);
    expect(jumps).toEqual([{ expectedAt: START + 10 * MINUTE, now: START - 110 * MINUTE, driftMs: -120 * MINUTE }]);
    expect(fired).toEqual([]);
    // By the wall clock it is 10:10; the entries are due at 13:00, 170 minutes on.
    await clock.advance(170 * MINUTE - 1);
    expect(fired).toEqual([]);
    await clock.advance(1);
    expect([fired, errors]).toEqual([['good'], ['bad: boom']]);
    await app.dispose();
  });

  test('20 agents with one job each and one agent with 50 share one timer (the bench runs 100)', async () => {
    const clock = new FakeClock(START);
    const app = createApp({ features: [createCronFeature()], overrides: (c) => c.rebind(IClock).toConstantValue(clock) });
    const delivered: PromptInjectionRequest[] = [];
    const queue = { enqueue: (r: PromptInjectionRequest) => (delivered.push(r), 'queued' as const) };
    const agents = Array.from({ length: 21 }, (_, i) =>
      app.createAgent({ id: `a${i}`, cwd: dir.path, dataDir: `${dir.path}/a${i}`, overrides: (c) => c.rebind(IAgentPromptInjection).toConstantValue(queue) }),
    );
    for (const [i, agent] of agents.entries()) {
      const cron = agent.get(IAgentCronService);
      const jobs = i === 20 ? 50 : 1;
      for (let j = 0; j < jobs; j++) await cron.create({ cron: `${(i + j) % 60} * * * *`, prompt: `p${i}-${j}`, timezone: 'UTC' });
    }
    expect(app.get(ICronScheduler).size).toBe(70);
    const settle = () => Promise.all(agents.map((a) => a.get(IAgentCronService).settled())).then(() => undefined);
    await clock.advance(60 * MINUTE, settle);
    expect(delivered.length).toBe(70);
    expect(clock.maxArmed).toBe(1);
    await app.dispose();
    expect(clock.armed).toBe(0);
  });
});

describe('SystemClock.setTimer', () => {
  test('runs the callback once after the delay; a disposed timer never runs', async () => {
    const clock = new SystemClock();
    const ran: string[] = [];
    clock.setTimer(5, () => ran.push('kept'));
    clock.setTimer(5, () => ran.push('cancelled')).dispose();
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(ran).toEqual(['kept']);
  });
});
