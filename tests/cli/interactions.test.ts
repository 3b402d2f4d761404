import { ApproveAllInteractions, UnattendedInteractions, formatApprovalRequest, formatNotification, parsePlanReviewLine, parseQuestionLine } from '../../src/cli/interactions';
import { NoInteractionHostError, type UserQuestion } from '../../src/services/interaction/interaction';

const single: UserQuestion = { question: 'Which database?', header: 'Database', multiSelect: false, options: [{ label: 'PostgreSQL' }, { label: 'SQLite' }] };
const multi: UserQuestion = { ...single, multiSelect: true, options: [{ label: 'lint' }, { label: 'tests' }, { label: 'types' }] };

describe('a line typed for a question', () => {
  test.each<[string, UserQuestion, string, ReturnType<typeof parseQuestionLine>]>([
    ['a number picks that option', single, '2', { selected: ['SQLite'] }],
    ['the last number asks for the Other text', single, '3', 'other'],
    ['text is the Other answer', single, 'MariaDB, please', { selected: [], other: 'MariaDB, please' }],
    ['a number out of range is refused', single, '0', { problem: 'Please type numbers from 1 to 3.' }],
    ['two numbers for a single choice are refused', single, '1,2', { problem: 'Please pick one number.' }],
    ['several numbers for a multi-select, repeated ones once', multi, '3, 1,3', { selected: ['types', 'lint'] }],
    ['Other mixed with options is refused', multi, '1,4', { problem: 'Type your own answer alone, or pick from 1 to 3.' }],
  ])('%s', (_name, question, text, expected) => {
    expect(parseQuestionLine(question, text)).toEqual(expected);
  });
});

describe('a line typed for a plan review', () => {
  test.each<[string, readonly string[], string, ReturnType<typeof parsePlanReviewLine>]>([
    ['a approves', [], 'a', { decision: 'approve' }],
    ['"a 2" approves with the second option', ['tests first', 'docs first'], 'a 2', { decision: 'approve', option: 'docs first' }],
    ['an option out of range is refused', ['tests first'], 'a 3', { problem: 'Please type "a" or "a 1" to "a 1".' }],
    ['r with text revises with that feedback', [], 'r split step 2', { decision: 'revise', feedback: 'split step 2' }],
    ['r alone asks for the feedback', [], 'r', 'revise'],
    ['x rejects, with an optional reason', [], 'x not now', { decision: 'reject', feedback: 'not now' }],
    ['anything else is refused', [], 'ok', { problem: 'Please answer a, r or x.' }],
  ])('%s', (_name, options, text, expected) => {
    expect(parsePlanReviewLine(options, text)).toEqual(expected);
  });
});

describe('an approval prompt', () => {
  test('a plan_review display names the plan file and the options', () => {
    const prompt = formatApprovalRequest({
      kind: 'approval',
      toolCallId: 'c',
      toolName: 'ExitPlanMode',
      args: {},
      description: 'Asking the user to review the plan',
      display: { kind: 'plan_review', path: '/d/plans/plan-1.md', options: [{ label: 'Tests first', description: 'Write the failing test.' }, { label: 'Parser first', description: '' }] },
      approvalRule: 'ExitPlanMode',
    });
    expect(prompt.split('\n').slice(1, 5)).toEqual([
      '? ExitPlanMode wants to run: Asking the user to review the plan',
      '    the plan in /d/plans/plan-1.md (you review it next)',
      '    1. Tests first: Write the failing test.',
      '    2. Parser first',
    ]);
  });
});

describe('the CLI hosts without a terminal', () => {
  const question = { kind: 'question' as const, toolCallId: 'c', questions: [single] };

  test('--yes approves calls and prints notifications, but answers no question and no plan review', async () => {
    const written: string[] = [];
    const host = new ApproveAllInteractions({ write: (t) => written.push(t) });
    expect((['approval', 'notification', 'question', 'plan_review'] as const).map((k) => host.canRequest(k))).toEqual([true, true, false, false]);
    await expect(host.request(question)).rejects.toThrow(new NoInteractionHostError('toolhost run --yes does not answer "question" requests.'));
    await host.request({ kind: 'notification', title: 'Done', body: 'one\ntwo', severity: 'error' });
    expect(written).toEqual(['[x] Done\n    one\n    two\n']);
  });

  test('unattended, only notifications are taken', async () => {
    const written: string[] = [];
    const host = new UnattendedInteractions({ write: (t) => written.push(t) });
    expect((['approval', 'notification', 'question', 'plan_review'] as const).map((k) => host.canRequest(k))).toEqual([false, true, false, false]);
    await expect(host.request(question)).rejects.toBeInstanceOf(NoInteractionHostError);
    await host.request({ kind: 'notification', title: 'Done' });
    expect(written).toEqual([formatNotification({ kind: 'notification', title: 'Done' })]);
    expect(written).toEqual(['[i] Done\n']);
  });
});
