import { ElicitRequestFormParamsSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { McpServeInteractions, approvalElicitation, approvalFromElicitation } from '../../../../src/features/mcp/serve/mcpServeInteractions';
import { type ApprovalRequest, NoInteractionHostError } from '../../../../src/services/interaction/interaction';

const request = (patch: Partial<ApprovalRequest> = {}): ApprovalRequest => ({
  kind: 'approval',
  toolCallId: 'mcp_1',
  toolName: 'Bash',
  args: { command: 'npm test' },
  description: 'Running npm test',
  display: { kind: 'command', command: 'npm test', cwd: '/w' },
  approvalRule: 'Bash(npm test)',
  ...patch,
});

describe('approvalElicitation', () => {
  test.each<[string, Partial<ApprovalRequest>, string]>([
    ['a command', {}, '    $ npm test   (in /w)'],
    ['a file', { display: { kind: 'file_io', operation: 'write', path: 'src/a.ts', detail: '12 lines' } }, '    write src/a.ts (12 lines)'],
    ['a diff', { display: { kind: 'diff', path: 'a.ts', before: 'x', after: 'y', hunks: 1 } }, '    edit a.ts (1 change)'],
    ['a fetch', { display: { kind: 'url_fetch', url: 'https://example.com' } }, '    GET https://example.com'],
    ['a search', { display: { kind: 'search', query: 'TODO', scope: 'src' } }, '    search "TODO" in src'],
    ['anything else shows the arguments', { display: { kind: 'generic', summary: 's' }, args: { a: 1 } }, '    arguments: {"a":1}'],
  ])('%s', (_name, patch, detail) => {
    const params = approvalElicitation(request(patch));
    const lines = params.message.split('\n');
    expect([lines[0], lines[1], lines[lines.length - 1]]).toEqual([
      `Bash wants to run: Running npm test`,
      detail,
      'Approve this call? "Approve for this session" also allows Bash(npm test) until the server stops.',
    ]);
    expect(ElicitRequestFormParamsSchema.safeParse(params).success).toBe(true);
  });

  test('file contents and edits are previewed, a dozen lines at most', () => {
    const content = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    const write = approvalElicitation(request({ toolName: 'Write', display: { kind: 'file_io', operation: 'write', path: '/w/a.txt', detail: 'overwrite, 140 characters', content } }));
    expect(write.message.split('\n').slice(1, -1)).toEqual([
      '    write /w/a.txt (overwrite, 140 characters)',
      ...Array.from({ length: 12 }, (_, i) => `    | line ${i + 1}`),
      '    | … (8 more lines)',
    ]);
    const edit = approvalElicitation(request({ toolName: 'Edit', display: { kind: 'diff', path: '/w/a.ts', before: 'let x = 1;\r\nfoo();', after: 'const x = 1;' } }));
    expect(edit.message.split('\n').slice(1, -1)).toEqual(['    edit /w/a.ts', '    - let x = 1;', '    - foo();', '    + const x = 1;']);
  });

  test('the machine-readable copy in _meta leaves out large arguments', () => {
    const small = approvalElicitation(request());
    expect(small._meta).toEqual({
      'toolhost/approval': {
        toolCallId: 'mcp_1',
        toolName: 'Bash',
        args: { command: 'npm test' },
        description: 'Running npm test',
        display: { kind: 'command', command: 'npm test', cwd: '/w' },
        approvalRule: 'Bash(npm test)',
      },
    });
    const large = approvalElicitation(request({ args: { content: 'z'.repeat(20_000) } }));
    expect(large._meta!['toolhost/approval']).toMatchObject({ argsOmitted: true });
    expect(large._meta!['toolhost/approval']).not.toHaveProperty('args');
  });

  test('long arguments are cut', () => {
    const params = approvalElicitation(request({ display: { kind: 'generic', summary: 's' }, args: { text: 'y'.repeat(5000) } }));
    expect(params.message.split('\n')[1]!.length).toBe(4 + 'arguments: '.length + 1000);
  });
});

describe('approvalFromElicitation', () => {
  test.each<[string, ElicitResult, object]>([
    ['approve', { action: 'accept', content: { decision: 'approve' } }, { decision: 'approve' }],
    ['approve for the session (a reason is ignored)', { action: 'accept', content: { decision: 'approve_session', reason: 'ok' } }, { decision: 'approve_session' }],
    ['reject with a reason', { action: 'accept', content: { decision: 'reject', reason: '  use yarn  ' } }, { decision: 'reject', feedback: 'use yarn' }],
    ['reject without a reason', { action: 'accept', content: { decision: 'reject', reason: ' ' } }, { decision: 'reject' }],
    ['accept without a decision', { action: 'accept', content: {} }, { decision: 'reject', feedback: 'The approval form came back without a decision.' }],
    ['decline', { action: 'decline' }, { decision: 'reject', feedback: 'The user declined the approval request.' }],
    ['cancel', { action: 'cancel' }, { decision: 'reject', feedback: 'The user dismissed the approval request without deciding.' }],
  ])('%s', (_name, result, expected) => {
    expect(approvalFromElicitation(result)).toEqual(expected);
  });
});

describe('McpServeInteractions', () => {
  const signal = new AbortController().signal;

  test('with --yes every approval is granted without asking; other kinds have no host', async () => {
    const interactions = new McpServeInteractions({ approveAll: true });
    expect(interactions.canRequest('approval')).toBe(true);
    expect(interactions.canRequest('user_tool')).toBe(false);
    expect(await interactions.request(request(), signal)).toEqual({ decision: 'approve' });
    await expect(interactions.request({ kind: 'user_tool', toolCallId: 'c', name: 'x', args: {} }, signal)).rejects.toBeInstanceOf(NoInteractionHostError);
  });

  test('without --yes it asks through the elicitor only when the client can answer', async () => {
    const interactions = new McpServeInteractions();
    expect(interactions.canRequest('approval')).toBe(false);
    expect(interactions.unavailableHint).toBe('start "toolhost mcp serve" with --yes to approve every call, or connect from an MCP client that supports elicitation');
    let can = false;
    const asked: string[] = [];
    interactions.setElicitor({
      canElicit: () => can,
      elicit: async (params, options) => {
        asked.push(`${options.toolCallId}: ${params.message.split('\n')[0]}`);
        return { action: 'accept', content: { decision: 'approve_session' } };
      },
      canNotify: () => false,
      notify: async () => undefined,
    });
    expect(interactions.canRequest('approval')).toBe(false);
    await expect(interactions.request(request(), signal)).rejects.toBeInstanceOf(NoInteractionHostError);
    can = true;
    expect(interactions.canRequest('approval')).toBe(true);
    expect(await interactions.request(request(), signal)).toEqual({ decision: 'approve_session' });
    expect(asked).toEqual(['mcp_1: Bash wants to run: Running npm test']);
  });
});
