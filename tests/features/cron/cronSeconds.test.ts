import { CronError, IAgentCronService } from '../../../src/features/cron/contract';
import { createCronFeature } from '../../../src/features/cron/cronFeature';
import { IAgentPromptInjection } from '../../../src/services/promptInjection/promptInjection';
import { useAgent } from '../../helpers/agentHarness';

const fx = useAgent({ tempDataDir: true });

function cronOf(config: Record<string, unknown>): IAgentCronService {
  const h = fx.open({ features: [createCronFeature()], config, overrides: (c) => c.rebind(IAgentPromptInjection).toConstantValue({ enqueue: () => 'queued' }) });
  return h.agent.get(IAgentCronService);
}

describe('cron.allowSeconds', () => {
  test('off (the default): a 6-field expression is refused, saying what is accepted', () => {
    const check = () => cronOf({}).check({ cron: '*/10 * * * * *', prompt: 'Poll.', timezone: 'UTC' });
    expect(check).toThrow(CronError);
    expect(check).toThrow('Invalid cron expression "*/10 * * * * *": it has 6 fields; use 5 fields (minute hour day-of-month month day-of-week) or @hourly, @daily, @weekly, @monthly.');
  });

  test('on: the first of 6 fields is the second, and 5 fields still mean minutes', () => {
    const cron = cronOf({ cron: { allowSeconds: true } });
    const { nextRuns } = cron.check({ cron: '*/10 * * * * *', prompt: 'Poll.', timezone: 'UTC' });
    expect(nextRuns.map((t) => new Date(t).getUTCSeconds() % 10)).toEqual([0, 0, 0]);
    expect(nextRuns[1]! - nextRuns[0]!).toBe(10_000);
    const minutes = cron.check({ cron: '* * * * *', prompt: 'Poll.', timezone: 'UTC' }).nextRuns;
    expect(minutes[1]! - minutes[0]!).toBe(60_000);
    expect(() => cron.check({ cron: '* * * * * * *', prompt: 'Poll.', timezone: 'UTC' })).toThrow('it has 7 fields; use 5 fields (minute hour day-of-month month day-of-week) or @hourly, @daily, @weekly, @monthly, or 6 with seconds first.');
  });
});
