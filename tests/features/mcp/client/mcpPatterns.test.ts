import { runIsolated } from '../../../helpers/isolated';
import { fixtureServer } from '../../../helpers/mcpFixtureServer';
import { useTempDir } from '../../../helpers/tempDir';

/**
 * An MCP server's schema pattern that backtracks (`(a+)+$`) froze the host when a long argument
 * was validated against it, or a long result against its output schema. The calls run in a child
 * process that is killed if it hangs.
 */
const dir = useTempDir();

const BACKTRACKS = `${'a'.repeat(50_000)}!`;
const TIME_LIMIT = 'matching a value against the pattern "(a+)+$" of the schema took longer than 500 ms, so the value was not accepted';

test('arguments and results are matched against backtracking schema patterns under a time limit', async () => {
  const results = await runIsolated<Array<[string, string]>>(
    `
    const { createApp, builtinFeatures } = load('index.js');
    const app = createApp({ features: builtinFeatures(), config: { approval: { allow: ['mcp__*'] }, mcpServers: { fx: input.server } } });
    const agent = app.createAgent({ cwd: input.cwd });
    for (let i = 0; i < 1500 && !agent.registry.get('mcp__fx__spell'); i++) await new Promise((r) => setTimeout(r, 10));
    const out = [];
    for (const [name, args] of input.calls) {
      const [result] = await agent.executor.execute([{ id: 'call', name, arguments: args }]);
      out.push([result.outcome + (result.isError ? ' (error)' : ''), String(result.output)]);
    }
    await app.dispose();
    return out;
    `,
    {
      cwd: dir.path,
      server: fixtureServer({ onlyMany: true, backtrackingPatterns: true }),
      calls: [
        ['mcp__fx__find', { q: 'aaa' }],
        ['mcp__fx__find', { q: BACKTRACKS }],
        ['mcp__fx__find', { q: 'aaaa' }],
        ['mcp__fx__spell', { text: 'aaa' }],
        ['mcp__fx__spell', { text: BACKTRACKS }],
        ['mcp__fx__spell', { text: 'aaaaa' }],
      ],
    },
    { killAfterMs: 40_000 },
  );
  expect(results).toEqual([
    ['executed', 'found: 3'],
    ['rejected (error)', `Invalid args for tool "mcp__fx__find": ${TIME_LIMIT}. Send a shorter or simpler value.`],
    ['executed', 'found: 4'],
    ['executed', '3'],
    ['executed (error)', `MCP server "fx" answered "spell" with an error: MCP error -32602: Failed to validate structured content: ${TIME_LIMIT}`],
    ['executed', '5'],
  ]);
}, 60_000);
