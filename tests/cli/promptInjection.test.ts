import { PrintingPromptInjection } from '../../src/cli/promptInjection';

describe('the CLI prompt injection (toolhost run)', () => {
  test('prints the prompt on stderr and answers dropped: run has no model to deliver to', () => {
    const written: string[] = [];
    const injection = new PrintingPromptInjection({ write: (text: string) => written.push(text) });
    expect(injection.enqueue({ origin: 'cron', key: 'cron-1', text: '<cron-fire id="cron-1">\nx\n</cron-fire>', coalesce: true })).toBe('dropped');
    expect(written).toEqual(['[cron cron-1] not delivered (toolhost run has no model to deliver to):\n<cron-fire id="cron-1">\nx\n</cron-fire>\n']);
  });
});
