import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { runCliProcess } from '../helpers/cliProcess';

const repo = nodePath.resolve(__dirname, '../..');

test('the example batch of `npm start` shows parallel reads, a refused secret, an invalid call and a spilled output', async () => {
  const run = await runCliProcess(['run', '--json', '--cwd', '.', '--config', 'examples/toolhost.json', 'examples/batch.json'], { cwd: repo });
  expect(run.code).toBe(0);
  const { results } = JSON.parse(run.stdout) as { results: Array<{ id: string; outcome: string; isError: boolean; truncated: boolean; outputPath?: string; output: string }> };
  expect(results.map((r) => [r.id, r.outcome, r.isError, r.truncated])).toEqual([
    ['readme', 'executed', false, false],
    ['package', 'executed', false, false],
    ['secret', 'resolution-failed', true, false],
    ['typo', 'rejected', true, false],
    ['listing', 'executed', false, true],
    ['unknown', 'rejected', true, false],
  ]);
  expect(results[3]!.output).toBe('Invalid args for tool "Read": missing required property "path"; unexpected property "paht"');
  const spilled = results[4]!;
  expect(spilled.output).toContain(`output_path: ${spilled.outputPath}`);
  expect(fs.readFileSync(spilled.outputPath!, 'utf8')).toMatch(/^src:\n/);
  // The two reads were started before either finished.
  const events = run.stderr.trim().split('\n').map((l) => JSON.parse(l) as { event: string; toolCallId: string });
  const at = (event: string, id: string) => events.findIndex((e) => e.event === event && e.toolCallId === id);
  expect(Math.max(at('started', 'readme'), at('started', 'package'))).toBeLessThan(Math.min(at('finished', 'readme'), at('finished', 'package')));
});
