import * as os from 'node:os';
import { IAgentWorkspaceService } from '../../src/services/workspace/workspace';
import { useAgent } from '../helpers/agentHarness';
import { runCliProcess } from '../helpers/cliProcess';
import { makeTempDir, removeDir, writeFiles } from '../helpers/tempDir';
import { testHome } from '../helpers/testHome';

// A developer's own skills (~/.claude/skills) must not change what tests see: the harness's agents
// and the spawned CLI get an empty test home unless a test gives one.
const fx = useAgent({ builtins: true });
let realLookingHome = '';
let savedHome: string | undefined;

beforeEach(() => {
  realLookingHome = makeTempDir('toolhost-real-home-');
  writeFiles(realLookingHome, { '.claude/skills/personal/SKILL.md': '---\nname: personal\ndescription: A skill only this developer has.\n---\nbody\n' });
  // What a developer machine looks like to a child process.
  savedHome = process.env.HOME;
  process.env.HOME = realLookingHome;
});
afterEach(() => {
  if (savedHome === undefined) delete process.env.HOME;
  else process.env.HOME = savedHome;
  removeDir(realLookingHome);
});

const toolNames = (h: ReturnType<typeof fx.open>) => h.agent.modelTools().map((t) => t.name);

test('the harness gives its agents the empty test home, not the real `~`; a skill in the home they are given does appear', () => {
  const h = fx.open();
  // os.homedir() is the real home (libuv reads the process environment, which jest's process.env does not change).
  expect(h.agent.get(IAgentWorkspaceService).homeDir).toBe(testHome());
  expect(testHome()).not.toBe(os.homedir());
  expect(toolNames(h)).not.toContain('Skill');
  // The same skill, in the home the test names, does appear: the fixture is a valid skill.
  const withHome = fx.open({ homeDir: realLookingHome });
  expect(toolNames(withHome)).toContain('Skill');
  expect(withHome.agent.modelTools().find((t) => t.name === 'Skill')!.description).toContain('personal');
});

test('the spawned CLI gets the empty test home unless the test passes HOME', async () => {
  const isolated = await runCliProcess(['skills', '--json'], { cwd: fx.dir });
  expect(isolated.code).toBe(0);
  expect((JSON.parse(isolated.stdout) as { skills: unknown[] }).skills).toEqual([]);
  const given = await runCliProcess(['skills', '--json'], { cwd: fx.dir, env: { HOME: realLookingHome } });
  expect((JSON.parse(given.stdout) as { skills: Array<{ name: string }> }).skills.map((s) => s.name)).toEqual(['personal']);
});
