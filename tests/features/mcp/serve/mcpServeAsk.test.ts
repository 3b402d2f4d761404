import { type CallToolResult, ElicitRequestFormParamsSchema, LoggingMessageNotificationSchema, type LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import { createNotifyFeature } from '../../../../src/features/notify/notifyFeature';
import { questionElicitation, questionFromElicitation } from '../../../../src/features/mcp/serve/mcpServeInteractions';
import type { QuestionRequest } from '../../../../src/services/interaction/interaction';
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
