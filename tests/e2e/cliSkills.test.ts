import { runCliProcess } from '../helpers/cliProcess';
import { makeTempDir, removeDir, useTempDir, writeFiles } from '../helpers/tempDir';

const dir = useTempDir();
let home = '';
beforeEach(() => {
  home = makeTempDir('toolhost-home-');
});
afterEach(() => removeDir(home));

describe('toolhost skills', () => {
  test('lists the skills of the workspace and home roots and every problem found, with the file it is about', async () => {
    writeFiles(dir.path, {
      '.agents/skills/pdf/SKILL.md': '---\nname: pdf\ndescription: Extract text from PDF files.\n---\nbody\n',
      '.claude/skills/Bad/SKILL.md': '---\nname: Bad\ndescription: x\n---\n',
    });
    writeFiles(home, {
      '.claude/skills/notes/SKILL.md': '---\nname: notes\ndescription: Use it: when taking notes\n---\n',
      '.claude/skills/release/SKILL.md': '---\nname: release\ndescription: Cut a release.\ndisable-model-invocation: true\n---\n',
    });
    const run = await runCliProcess(['skills'], { cwd: dir.path, env: { HOME: home } });
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(run.stdout).toBe(
      [
        'NAME     SCOPE            DESCRIPTION',
        'pdf      workspace        Extract text from PDF files.',
        'notes    user             Use it: when taking notes',
        'release  user, user only  Cut a release.',
        '',
        `3 skills in 3 roots (${dir.path}/.agents/skills, ${dir.path}/.claude/skills, ${home}/.claude/skills).`,
        '',
        '2 problems:',
        `error: ${dir.path}/.claude/skills/Bad/SKILL.md: Skill name "Bad" is invalid: use 1–64 lowercase letters, digits and hyphens, with no hyphen at the start, at the end or twice in a row (e.g. "pdf-processing").`,
        `warning: ${home}/.claude/skills/notes/SKILL.md: SKILL.md front matter is not valid YAML (line 3: Nested mappings are not allowed in compact mappings); read leniently — quote the description.`,
        '',
      ].join('\n'),
    );
  });

  test('--json prints {roots, skills, diagnostics}; skills.paths from the config is searched', async () => {
    writeFiles(dir.path, { 'toolhost.json': JSON.stringify({ skills: { paths: ['vendor/skills'] } }), 'vendor/skills/lint/SKILL.md': '---\nname: lint\ndescription: Lint.\nallowed-tools: Bash(npm run lint)\n---\n' });
    const run = await runCliProcess(['skills', '--json'], { cwd: dir.path, env: { HOME: home } });
    expect(run.code).toBe(0);
    const listing = JSON.parse(run.stdout) as { roots: string[]; skills: Array<Record<string, unknown>>; diagnostics: unknown[] };
    expect(listing.roots).toEqual([`${dir.path}/vendor/skills`]);
    expect(listing.skills).toMatchObject([{ name: 'lint', scope: 'config', allowedTools: ['Bash(npm run lint)'], dir: `${dir.path}/vendor/skills/lint` }]);
    expect(listing.diagnostics).toEqual([]);
  });

  test('with no skills folder it says where skills go', async () => {
    const run = await runCliProcess(['skills'], { cwd: dir.path, env: { HOME: home } });
    expect([run.code, run.stdout]).toEqual([
      0,
      'No skills: no skills folder exists. A skill is a folder <name>/ with a SKILL.md, in .agents/skills or .claude/skills of the workspace or of the home directory, or in a folder named in config skills.paths.\n',
    ]);
  });
});
