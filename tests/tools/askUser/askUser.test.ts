import { Emitter } from '../../../src/base/event';
import { ISessionInteractionService, type InteractionKind, type QuestionRequest, type QuestionResponse } from '../../../src/services/interaction/interaction';
import { interactionHost } from '../../../src/services/interaction/interactionHost';
import { createAskUserFeature } from '../../../src/tools/askUser/askUserFeature';
import { DISMISSED_TEXT } from '../../../src/tools/askUser/askUser';
import { useAgent } from '../../helpers/agentHarness';
import { FakeHost } from '../../helpers/fakeHost';

const fixture = useAgent({ features: [createAskUserFeature()] });

const db = { question: 'Which database?', header: 'Database', options: [{ label: 'PostgreSQL (Recommended)', description: 'the default' }, { label: 'SQLite' }] };
const checks = { question: 'Which checks?', header: 'Checks', multi_select: true, options: [{ label: 'lint' }, { label: 'tests' }, { label: 'types' }] };

function answering(answer: (request: QuestionRequest, signal: AbortSignal) => QuestionResponse | Promise<QuestionResponse>): FakeHost {
  return new FakeHost({ question: answer });
}

describe('AskUserQuestion through the executor', () => {
  test('an answer comes back as JSON in question order, with the same structuredContent; no approval is asked', async () => {
    const host = answering(() => ({ status: 'answered', answers: [{ selected: ['SQLite'] }, { selected: ['lint', 'types'], other: ' also e2e ' }] }));
    const harness = fixture.open({ interactions: host });
    const result = await harness.call('AskUserQuestion', { questions: [db, checks] });
    const expected = {
      status: 'answered',
      answers: [
        { question: 'Which database?', selected: ['SQLite'], other: null },
        { question: 'Which checks?', selected: ['lint', 'types'], other: 'also e2e' },
      ],
    };
    expect([result.outcome, result.isError]).toEqual(['executed', false]);
    expect(JSON.parse(result.output as string)).toEqual(expected);
    expect(result.structuredContent).toEqual(expected);
    expect(host.requests).toEqual([
      {
        kind: 'question',
        toolCallId: 'call_1',
        questions: [
          { question: 'Which database?', header: 'Database', multiSelect: false, options: [{ label: 'PostgreSQL (Recommended)', description: 'the default' }, { label: 'SQLite' }] },
          { question: 'Which checks?', header: 'Checks', multiSelect: true, options: [{ label: 'lint' }, { label: 'tests' }, { label: 'types' }] },
        ],
      },
    ]);
  });

  test('a dismissal is a success that tells the model not to assume an answer', async () => {
    const harness = fixture.open({ interactions: answering(() => ({ status: 'dismissed' })) });
    const result = await harness.call('AskUserQuestion', { questions: [db] });
    expect(result.isError).toBe(false);
    expect(result.output).toBe(`{"status":"dismissed","answers":[]}\n\n${DISMISSED_TEXT}`);
    expect(result.output).toContain('Do not assume an answer');
    expect(result.structuredContent).toEqual({ status: 'dismissed', answers: [] });
  });

  test('a host failure is an error, never a fake dismissal', async () => {
    const harness = fixture.open({
      interactions: answering(() => {
        throw new Error('the dialog crashed');
      }),
    });
    const result = await harness.call('AskUserQuestion', { questions: [db] });
    expect([result.isError, result.output]).toEqual([true, 'Could not ask the user: the dialog crashed. Ask in plain text instead.']);
  });

  test.each<[string, QuestionResponse, string]>([
    ['an unknown label', { status: 'answered', answers: [{ selected: ['MySQL'] }] }, 'the host answered "Which database?" with "MySQL", which is not one of its options'],
    ['two labels for a single choice', { status: 'answered', answers: [{ selected: ['SQLite', 'PostgreSQL (Recommended)'] }] }, 'the host picked 2 options for "Which database?", which allows one'],
    ['too few answers', { status: 'answered', answers: [] }, 'the host gave 0 answers to 1 questions'],
    ['an empty answer', { status: 'answered', answers: [{ selected: [], other: '  ' }] }, 'the host gave no answer to "Which database?"'],
  ])('a host that answers with %s fails the call', async (_name, response, reason) => {
    const harness = fixture.open({ interactions: answering(() => response) });
    const result = await harness.call('AskUserQuestion', { questions: [db] });
    expect([result.isError, result.output]).toEqual([true, `Could not ask the user: ${reason}. Ask in plain text instead.`]);
  });

  test('a host that never answers ends with a timeout error after questions.timeoutS, and its request is cancelled', async () => {
    let cancelled = false;
    const host = answering(
      (_request, signal) =>
        new Promise<never>((_resolve, reject) =>
          signal.addEventListener('abort', () => {
            cancelled = true;
            reject(new Error('cancelled'));
          }),
        ),
    );
    const harness = fixture.open({ interactions: host, config: { questions: { timeoutS: 1 } } });
    const result = await harness.call('AskUserQuestion', { questions: [db] });
    expect([result.isError, result.output]).toEqual([true, 'No answer within 1 s (questions.timeoutS); ask again later or in plain text.']);
    expect(cancelled).toBe(true);
  });

  test('aborting the batch aborts the question (outcome aborted, not a timeout or a dismissal)', async () => {
    const host = answering((_request, signal) => new Promise<never>((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('cancelled')))));
    const harness = fixture.open({ interactions: host });
    const controller = new AbortController();
    const pending = harness.call('AskUserQuestion', { questions: [db] }, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort();
    expect((await pending).outcome).toBe('aborted');
  });

  test.each<[string, unknown, string]>([
    ['two questions with one text', { questions: [db, { ...db, header: 'Again' }] }, 'Invalid questions: two questions have the text "Which database?". Ask each question once.'],
    [
      'one label twice in a question',
      { questions: [{ ...db, options: [{ label: 'SQLite' }, { label: 'SQLite' }] }] },
      'Invalid questions: the question "Which database?" has the option "SQLite" twice. Give each option a distinct label.',
    ],
  ])('%s is refused in resolve, before the user is asked', async (_name, args, message) => {
    const host = answering(() => ({ status: 'dismissed' }));
    const harness = fixture.open({ interactions: host });
    const result = await harness.call('AskUserQuestion', args);
    expect([result.outcome, result.isError, result.output]).toEqual(['synthetic', true, message]);
    expect(host.requests).toEqual([]);
  });

  test.each<[string, unknown, RegExp]>([
    ['a header over 12 characters', { questions: [{ ...db, header: 'Authentication' }] }, /header.*12/],
    ['one option', { questions: [{ ...db, options: [{ label: 'SQLite' }] }] }, /options.*2/],
    ['five options', { questions: [{ ...db, options: ['a', 'b', 'c', 'd', 'e'].map((label) => ({ label })) }] }, /options.*4/],
    ['no questions', { questions: [] }, /questions.*1/],
    ['five questions', { questions: [1, 2, 3, 4, 5].map((n) => ({ ...db, question: `Q${n}?` })) }, /questions.*4/],
  ])('the schema refuses %s', async (_name, args, message) => {
    const host = answering(() => ({ status: 'dismissed' }));
    const harness = fixture.open({ interactions: host });
    const result = await harness.call('AskUserQuestion', args);
    expect([result.outcome, result.isError]).toEqual(['rejected', true]);
    expect(result.output).toMatch(message);
    expect(host.requests).toEqual([]);
  });

  test('two question calls of one batch are asked one after the other', async () => {
    const log: string[] = [];
    const host = answering(async (request) => {
      log.push(`ask ${request.toolCallId}`);
      await new Promise((resolve) => setTimeout(resolve, 30));
      log.push(`answered ${request.toolCallId}`);
      return { status: 'answered', answers: [{ selected: ['SQLite'] }] };
    });
    const harness = fixture.open({ interactions: host });
    const results = await harness.agent.executor.execute([
      { id: 'a', name: 'AskUserQuestion', arguments: JSON.stringify({ questions: [db] }) },
      { id: 'b', name: 'AskUserQuestion', arguments: JSON.stringify({ questions: [db] }) },
    ]);
    expect(results.map((r) => r.isError)).toEqual([false, false]);
    expect(log).toEqual(['ask a', 'answered a', 'ask b', 'answered b']);
  });
});

describe('AskUserQuestion activation', () => {
  test('is not offered when nobody can answer a question; a call says it is not active', async () => {
    const harness = fixture.open({ interactions: new FakeHost({ approval: () => ({ decision: 'approve' }) }) });
    expect(harness.agent.registry.get('AskUserQuestion')).toBeUndefined();
    expect(harness.agent.activation.status().find((s) => s.name === 'AskUserQuestion')).toEqual({
      name: 'AskUserQuestion',
      state: 'inactive',
      reason: 'its when() condition is false',
    });
    const result = await harness.call('AskUserQuestion', { questions: [db] });
    expect(result.output).toContain('Tool "AskUserQuestion" exists but is not active');
  });

  test('follows the host: it appears and disappears when the host says its availability changed', async () => {
    let canAsk = false;
    const changed = new Emitter<void>();
    const inner = interactionHost({ question: () => ({ status: 'answered', answers: [{ selected: ['SQLite'] }] }) });
    const host: ISessionInteractionService = {
      canRequest: (kind: InteractionKind) => (kind === 'question' ? canAsk : false),
      onDidChangeAvailability: changed.event,
      request: (request, signal) => inner.request(request, signal),
    };
    const harness = fixture.open({ interactions: host });
    expect(harness.agent.registry.get('AskUserQuestion')).toBeUndefined();
    canAsk = true;
    changed.fire();
    expect(harness.agent.registry.get('AskUserQuestion')).toBeDefined();
    expect((await harness.call('AskUserQuestion', { questions: [db] })).isError).toBe(false);
    canAsk = false;
    changed.fire();
    expect(harness.agent.registry.get('AskUserQuestion')).toBeUndefined();
  });

  test('a host rebound after the agent was created is followed from the next recompute on', () => {
    const harness = fixture.open();
    expect(harness.agent.registry.get('AskUserQuestion')).toBeUndefined();
    let canAsk = true;
    const changed = new Emitter<void>();
    const host: ISessionInteractionService = {
      canRequest: (kind) => kind === 'question' && canAsk,
      onDidChangeAvailability: changed.event,
      request: () => Promise.reject(new Error('unused')),
    };
    harness.agent.container.rebind(ISessionInteractionService).toConstantValue(host);
    harness.agent.activation.recompute();
    expect(harness.agent.registry.get('AskUserQuestion')).toBeDefined();
    canAsk = false;
    changed.fire();
    expect(harness.agent.registry.get('AskUserQuestion')).toBeUndefined();
  });
});

