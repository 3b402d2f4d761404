import * as fs from 'node:fs';
import * as os from 'node:os';
import * as nodePath from 'node:path';
import { IAgentCronService, ICronScheduler } from '../src/features/cron/contract';
import { createCronFeature } from '../src/features/cron/cronFeature';
import { parseCronSchedule } from '../src/features/cron/cronSchedule';
import { createApp } from '../src/scopes/appScope';
import { IClock } from '../src/services/clock/clock';
import { IAgentPromptInjection, type PromptInjectionResult } from '../src/services/promptInjection/promptInjection';
import { FakeClock } from '../tests/helpers/fakeClock';
import { fmt, median, nowMs, table } from './util';

const START = Date.parse('2026-03-28T12:00:00Z');
const MINUTE = 60_000;

/**
 * Cron at scale: 50 jobs in one agent and 100 agents with one job each in one App share one timer
 * (counted through the IClock port, a virtual clock), and the scheduler's own cost per fire
 * against a bare timer chain on the same clock (paired, alternating rounds). Also the whole fire
 * (croner's next run, the state write, the host's enqueue) per fire, for scale.
 */
export async function cronBench(): Promise<void> {
  const dataRoot = fs.mkdtempSync(nodePath.join(os.tmpdir(), 'toolhost-cron-bench-'));
  try {
    await sharedTimer(dataRoot);
    await schedulerOverhead();
  } finally {
    fs.rmSync(dataRoot, { recursive: true, force: true });
  }
}

async function sharedTimer(dataRoot: string): Promise<void> {
  const clock = new FakeClock(START);
  const app = createApp({ features: [createCronFeature()], overrides: (c) => c.rebind(IClock).toConstantValue(clock) });
  let delivered = 0;
  const queue = { enqueue: (): PromptInjectionResult => (delivered++, 'queued') };
  const agents = Array.from({ length: 101 }, (_, i) =>
    app.createAgent({ id: `a${i}`, cwd: process.cwd(), dataDir: nodePath.join(dataRoot, `a${i}`), overrides: (c) => c.rebind(IAgentPromptInjection).toConstantValue(queue) }),
  );
  const services = agents.map((a) => a.get(IAgentCronService));
  // Agents a0…a99: one job each at minute i % 60; a100: 50 jobs at minutes 0…49.
  for (const [i, cron] of services.entries()) {
    const minutes = i === 100 ? Array.from({ length: 50 }, (_, m) => m) : [i % 60];
    for (const m of minutes) await cron.create({ cron: `${m} * * * *`, prompt: `job ${i}/${m}`, timezone: 'Europe/Berlin' });
  }
  const entries = app.get(ICronScheduler).size;
  const createdBefore = clock.created;
  const settle = () => Promise.all(services.map((s) => s.settled())).then(() => undefined);
  const t = nowMs();
  await clock.advance(3 * 60 * MINUTE, settle);
  const elapsed = nowMs() - t;
  const timersSet = clock.created - createdBefore;
  console.log('\n## Cron: 100 agents with one job each and one agent with 50, in one App, 3 hours on a virtual clock');
  console.log(
    table(
      ['figure', 'value'],
      [
        ['scheduler entries', String(entries)],
        ['fires delivered', String(delivered)],
        ['timers armed at once, at most (aim: 1)', String(clock.maxArmed)],
        ['timers set in 3 h', String(timersSet)],
        ['fires per timer set', fmt(delivered / timersSet)],
        ['whole fire, ms (croner next run + state write + enqueue)', fmt(elapsed / delivered, 3)],
      ],
    ),
  );
  await app.dispose();
}

/** µs per fire: the scheduler (heap, wake, re-arm) on the virtual clock, against a bare chain of timers on the same clock. */
async function schedulerOverhead(): Promise<void> {
  const FIRES = 2000;
  const noop = (): void => undefined;
  const viaScheduler = async (): Promise<number> => {
    const clock = new FakeClock(START);
    const app = createApp({ features: [createCronFeature()], overrides: (c) => c.rebind(IClock).toConstantValue(clock) });
    const scheduler = app.get(ICronScheduler);
    // Entries a second apart (under the wake check), scheduled in a shuffled order.
    for (let i = 0; i < FIRES; i++) scheduler.schedule(`k${(i * 7919) % FIRES}`, START + 1000 * (1 + ((i * 7919) % FIRES)), noop);
    const t = nowMs();
    for (let i = 0; i < FIRES; i++) await clock.advance(1000);
    const micros = ((nowMs() - t) * 1000) / FIRES;
    if (scheduler.size !== 0) throw new Error('entries left');
    await app.dispose();
    return micros;
  };
  const bareChain = async (): Promise<number> => {
    const clock = new FakeClock(START);
    let left = FIRES;
    const arm = (): void => {
      clock.setTimer(1000, () => {
        if (--left > 0) arm();
      });
    };
    arm();
    const t = nowMs();
    for (let i = 0; i < FIRES; i++) await clock.advance(1000);
    return ((nowMs() - t) * 1000) / FIRES;
  };
  for (let i = 0; i < 3; i++) {
    await viaScheduler();
    await bareChain();
  }
  const scheduler: number[] = [];
  const bare: number[] = [];
  for (let r = 0; r < 21; r++) {
    if (r % 2 === 0) {
      scheduler.push(await viaScheduler());
      bare.push(await bareChain());
    } else {
      bare.push(await bareChain());
      scheduler.push(await viaScheduler());
    }
  }
  const [s, b] = [median(scheduler), median(bare)];
  // croner's next run in a time zone, which each recurring fire computes once (outside the scheduler).
  const schedule = parseCronSchedule('*/5 * * * *', 'Europe/Berlin');
  let at = START;
  const t = nowMs();
  for (let i = 0; i < 2000; i++) at = schedule.next(at)!;
  const cronerMicros = ((nowMs() - t) * 1000) / 2000;
  console.log(`\n## Cron scheduler: µs per fire, ${FIRES} entries a second apart, 21 alternating rounds (median)`);
  console.log(
    table(
      ['case', 'µs/fire', 'added µs', 'ratio'],
      [
        ['bare timer chain on the same clock', fmt(b), '-', '1.00x'],
        ['ICronScheduler (heap, wake, re-arm)', fmt(s), fmt(s - b), `${fmt(s / b)}x`],
        ['croner next run (Europe/Berlin), for scale', fmt(cronerMicros), '-', `${fmt(cronerMicros / b)}x`],
      ],
    ),
  );
  console.log('Aim: under 1000 µs (1 ms) of scheduler overhead per fire.');
}
