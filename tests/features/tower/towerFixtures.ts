import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { TOWER_FLAG } from '../../../src/features/tower/contract';
import { outputText } from '../../../src/tool/contract';
import { ISubagentRunnerService, type SubagentRunRequest } from '../../../src/tools/agent/contract';
import { ScriptedSubagentRunner, type SubagentScript } from '../../../src/tools/agent/scriptedRunner';
import type { AgentFixture, Harness, HarnessOptions } from '../../helpers/agentHarness';
import { approveAll } from '../../helpers/fakeHost';

export const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

/** A repository with src/parser/p.ts and docs/a.md committed on main. */
export function initRepo(dir: string): void {
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.email', 't@example.com');
  git(dir, 'config', 'user.name', 'T');
  fs.mkdirSync(nodePath.join(dir, 'src', 'parser'), { recursive: true });
  fs.mkdirSync(nodePath.join(dir, 'docs'), { recursive: true });
  fs.writeFileSync(nodePath.join(dir, 'src', 'parser', 'p.ts'), 'export const p = 1;\n');
  fs.writeFileSync(nodePath.join(dir, 'docs', 'a.md'), '# a\n');
  git(dir, 'add', '.');
  git(dir, 'commit', '-q', '-m', 'init');
}

/** The main agent `main` in a fresh repository in the fixture's dir, Tower on, every approval granted, a scripted subagent runner bound. */
export function openTower(
  fx: AgentFixture,
  script?: SubagentScript | ((request: SubagentRunRequest) => SubagentScript),
  options: Partial<HarnessOptions> = {},
): { h: Harness; runner: ScriptedSubagentRunner } {
  initRepo(fx.dir);
  const h = fx.open({ id: 'main', builtins: true, interactions: approveAll(), env: { [TOWER_FLAG]: '1' }, ...options });
  const runner = new ScriptedSubagentRunner(script ?? { text: 'done' });
  h.app.get(ISubagentRunnerService).bind(runner);
  return { h, runner };
}

export const out = async (h: Harness, name: string, input: unknown) => {
  const result = await h.call(name, input);
  return { text: outputText(result.output), isError: result.isError === true };
};

export const towerFile = (dir: string, ...parts: string[]) => nodePath.join(dir, '.tower', 'comms', ...parts);

export const readState = (dir: string) => JSON.parse(fs.readFileSync(towerFile(dir, 'state.json'), 'utf8'));

export async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
