import * as fs from 'node:fs';
import { type CallToolResult, ElicitRequestFormParamsSchema, type ElicitResult, LoggingMessageNotificationSchema, type LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import { createNotifyFeature } from '../../../../src/features/notify/notifyFeature';
import { planReviewElicitation, planReviewFromElicitation, questionElicitation, questionFromElicitation } from '../../../../src/features/mcp/serve/mcpServeInteractions';
import { IAgentPlanModeService } from '../../../../src/features/plan/contract';
import { createPlanFeature } from '../../../../src/features/plan/planFeature';
import type { PlanReviewRequest, QuestionRequest } from '../../../../src/services/interaction/interaction';
import { createAskUserFeature } from '../../../../src/tools/askUser/askUserFeature';
import { useAgent } from '../../../helpers/agentHarness';
import { waitFor } from '../../../helpers/async';
import { callResultText, type McpServeHarness, openMcpServeHarness } from '../../../helpers/mcpServeHarness';

const fx = useAgent({ prefix: 'toolhost-mcp-ask-' });
let h: McpServeHarness | undefined;

const features = () => [createAskUserFeature(), createNotifyFeature()];
const db = { question: 'Which database?', header: 'Database', options: [{ label: 'PostgreSQL' }, { label: 'SQLite', description: 'one file' }] };
const checks = { question: 'Which checks?', header: 'Checks', multi_select: true, options: [{ label: 'lint' }, { label: 'tests' }] };

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await h!.client.callTool({ name, arguments: args })) as CallToolResult;
}

describe('mcp serve: AskUserQuestion through form elicitation', () => {
  test('a client with elicitation is offered the tool, gets one form for the questions, and its answer comes back', async () => {
    h = fx.use(
      await openMcpServeHarness({
        cwd: fx.dir,
        features: features(),
        elicitation: () => ({ action: 'accept', content: { q1: 'SQLite', q2: ['lint', 'tests'], q2_other: 'and e2e' } }),
      }),
    );
    const names = (await h.client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(['AskUserQuestion', 'NotifyUser']);
    const result = await call('AskUserQuestion', { questions: [db, checks] });
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent ?? JSON.parse(callResultText(result))).toEqual({
      status: 'answered',
      answers: [
        { question: 'Which database?', selected: ['SQLite'], other: null },
        { question: 'Which checks?', selected: ['lint', 'tests'], other: 'and e2e' },
      ],
    });
    expect(h.elicitations).toHaveLength(1);
    const params = h.elicitations[0]!.params;
    expect(ElicitRequestFormParamsSchema.safeParse(params).success).toBe(true);
    expect(params).toMatchObject({
      mode: 'form',
      message: 'The agent asks 2 questions:\n1. [Database] Which database?\n2. [Checks] Which checks?\nPick an option or type your own answer. Declining tells the agent not to assume an answer.',
      requestedSchema: {
        properties: {
          q1: { type: 'string', title: 'Database', enum: ['PostgreSQL', 'SQLite'] },
          q2: { type: 'array', title: 'Checks', items: { type: 'string', enum: ['lint', 'tests'] } },
          q2_other: { type: 'string' },
        },
      },
    });
  });

  test('a declined form is a dismissal, not an answer', async () => {
    h = fx.use(await openMcpServeHarness({ cwd: fx.dir, features: features(), elicitation: () => ({ action: 'decline' }) }));
    const result = await call('AskUserQuestion', { questions: [db] });
    expect(result.isError ?? false).toBe(false);
    expect(callResultText(result)).toContain('{"status":"dismissed","answers":[]}');
    expect(callResultText(result)).toContain('Do not assume an answer');
  });

  test('--yes without elicitation does not offer the tool: nobody answers a question for the person', async () => {
    h = fx.use(await openMcpServeHarness({ cwd: fx.dir, features: features(), approveAll: true }));
    const names = (await h.client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(['NotifyUser']);
    const result = await call('AskUserQuestion', { questions: [db] });
    expect(result.isError).toBe(true);
    expect(callResultText(result)).toContain('Tool "AskUserQuestion" exists but is not active');
  });
});

describe('mcp serve: NotifyUser as an MCP log message', () => {
  test('the client receives notifications/message with the level and the cleaned title and body', async () => {
    h = fx.use(await openMcpServeHarness({ cwd: fx.dir, features: features() }));
    const received: LoggingMessageNotification['params'][] = [];
    h.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void received.push(n.params));
    const result = await call('NotifyUser', { title: 'Tests green\u001b[0m', body: 'on main', severity: 'warning' });
    expect(callResultText(result)).toBe('sent: true');
    await waitFor(() => received.length === 1, { what: 'the log message' });
    expect(received).toEqual([{ level: 'warning', logger: 'toolhost/notify', data: { title: 'Tests green[0m', body: 'on main' } }]);
  });
});

describe('questionFromElicitation', () => {
  const request: QuestionRequest = {
    kind: 'question',
    toolCallId: 'c',
    questions: [{ question: 'Which database?', header: 'Database', multiSelect: false, options: [{ label: 'PostgreSQL' }, { label: 'SQLite' }] }],
  };
  test('cancel is a dismissal; an accepted form without an answer is an error, never a guess', () => {
    expect(questionFromElicitation(request, { action: 'cancel' })).toEqual({ status: 'dismissed' });
    expect(() => questionFromElicitation(request, { action: 'accept', content: {} })).toThrow('the form came back without an answer to "Which database?"');
    expect(questionFromElicitation(request, { action: 'accept', content: { q1_other: ' MariaDB ' } })).toEqual({ status: 'answered', answers: [{ selected: [], other: 'MariaDB' }] });
    expect(ElicitRequestFormParamsSchema.safeParse(questionElicitation(request)).success).toBe(true);
  });
});

describe('mcp serve: ExitPlanMode through form elicitation', () => {
  async function enterPlanMode(): Promise<string> {
    const entered = await call('EnterPlanMode', {});
    expect(entered.isError ?? false).toBe(false);
    const planFile = (entered.structuredContent as { plan_file: string }).plan_file;
    fs.writeFileSync(planFile, '# Plan\n\n1. Fix the parser\n');
    return planFile;
  }

  test('a client with elicitation is offered plan mode, gets the plan in one form, and its approval (with the option picked) leaves the mode', async () => {
    h = fx.use(
      await openMcpServeHarness({ cwd: fx.dir, features: [createPlanFeature()], elicitation: () => ({ action: 'accept', content: { decision: 'approve', option: 'Tests first' } }) }),
    );
    expect((await h.client.listTools()).tools.map((t) => t.name)).toEqual(['EnterPlanMode', 'ExitPlanMode']);
    const planFile = await enterPlanMode();
    const result = await call('ExitPlanMode', { options: [{ label: 'Tests first' }, { label: 'Parser first' }] });
    expect(result.isError ?? false).toBe(false);
    expect(callResultText(result)).toMatch(/^Plan approved by the user; plan mode is off\. Carry out the plan, as picked: Tests first\.\n/);
    expect(await h.agent.container.get(IAgentPlanModeService).current()).toBeUndefined();
    expect(h.elicitations).toHaveLength(1);
    const params = h.elicitations[0]!.params;
    expect(ElicitRequestFormParamsSchema.safeParse(params).success).toBe(true);
    expect(params).toMatchObject({
      mode: 'form',
      message: `The agent asks you to review its plan (${planFile}):\n\n# Plan\n\n1. Fix the parser\n\n\nApprove it, ask for a revision, or reject it.`,
      requestedSchema: {
        properties: {
          decision: { type: 'string', enum: ['approve', 'revise', 'reject'] },
          option: { type: 'string', enum: ['Tests first', 'Parser first'] },
          feedback: { type: 'string' },
        },
        required: ['decision'],
      },
      _meta: { 'toolhost/plan_review': { path: planFile, plan: '# Plan\n\n1. Fix the parser\n', options: ['Tests first', 'Parser first'] } },
    });
  });

  test('revise keeps the mode and passes the feedback on; a declined form rejects and ends the turn', async () => {
    const answers: ElicitResult[] = [{ action: 'accept', content: { decision: 'revise', feedback: 'Add a test step.' } }, { action: 'decline' }];
    h = fx.use(await openMcpServeHarness({ cwd: fx.dir, features: [createPlanFeature()], elicitation: () => answers.shift()! }));
    const planFile = await enterPlanMode();
    const revised = await call('ExitPlanMode', {});
    expect([revised.isError ?? false, callResultText(revised)]).toEqual([
      false,
      `The user asked for changes; plan mode stays on. Change the plan in ${planFile} and call ExitPlanMode again.\n\nFeedback: Add a test step.`,
    ]);
    expect(h.elicitations[0]!.params).not.toHaveProperty('requestedSchema.properties.option');
    const declined = await call('ExitPlanMode', {});
    expect([declined.isError, callResultText(declined)]).toEqual([
      true,
      'The user rejected the plan; plan mode stays on and the turn ends. Wait for the user.\n\nFeedback: The user declined to review the plan.',
    ]);
    expect(await h.agent.container.get(IAgentPlanModeService).current()).toEqual({ mode: 'plan', planFile });
  });

  test('without elicitation (even with --yes) nobody can review a plan: EnterPlanMode is not offered', async () => {
    h = fx.use(await openMcpServeHarness({ cwd: fx.dir, features: [createPlanFeature()], approveAll: true }));
    expect((await h.client.listTools()).tools.map((t) => t.name)).toEqual(['ExitPlanMode']);
  });
});

describe('planReviewFromElicitation', () => {
  const request: PlanReviewRequest = { kind: 'plan_review', toolCallId: 'c', plan: '# P\n', path: '/p.md', options: ['A'] };
  test('only a clear approval approves; an option not offered is dropped', () => {
    expect(planReviewFromElicitation(request, { action: 'cancel' })).toEqual({ decision: 'reject', feedback: 'The user closed the plan review without deciding.' });
    expect(planReviewFromElicitation(request, { action: 'accept', content: {} })).toEqual({ decision: 'reject', feedback: 'The plan review form came back without a decision.' });
    expect(planReviewFromElicitation(request, { action: 'accept', content: { decision: 'approve', option: 'B' } })).toEqual({ decision: 'approve' });
    expect(planReviewFromElicitation(request, { action: 'accept', content: { decision: 'reject', feedback: ' no ' } })).toEqual({ decision: 'reject', feedback: 'no' });
    expect(ElicitRequestFormParamsSchema.safeParse(planReviewElicitation(request)).success).toBe(true);
  });
});
