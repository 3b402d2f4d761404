import { parse } from 'yaml';
import { parseSkillFile } from '../../../src/features/skills/frontMatter';
import { checkSkillFields, skillNameProblem } from '../../../src/features/skills/skillRules';
import { expandSkillBody, splitArguments } from '../../../src/features/skills/skillActivation';

describe('SKILL.md front matter', () => {
  test('is parsed with yaml: keys, values and the body after the closing line', () => {
    const parsed = parseSkillFile('---\nname: pdf\ndescription: "Reads PDFs: text and tables."\nmetadata:\n  author: x\n---\n# PDF\nbody\n');
    expect(parsed.problems).toEqual([]);
    expect(parsed.fields).toEqual({ name: 'pdf', description: 'Reads PDFs: text and tables.', metadata: { author: 'x' } });
    expect(parsed.body).toBe('# PDF\nbody\n');
  });

  test('an unquoted ": " in description, which yaml rejects, is read leniently and reported with its line', () => {
    const text = '---\nname: pdf\ndescription: Use it: when the user mentions PDFs\n  or scanned forms\nallowed-tools: Bash(pdftotext:*) Read\nlicense: MIT\n---\nbody\n';
    // The oracle: the YAML parser itself refuses this front matter.
    expect(() => parse(text.split('---\n')[1]!)).toThrow(/Nested mappings are not allowed in compact mappings/);
    const parsed = parseSkillFile(text);
    expect(parsed.fields).toEqual({ name: 'pdf', description: 'Use it: when the user mentions PDFs or scanned forms', 'allowed-tools': 'Bash(pdftotext:*) Read' });
    expect(parsed.problems).toEqual([
      { severity: 'warning', message: 'SKILL.md front matter is not valid YAML (line 3: Nested mappings are not allowed in compact mappings); read leniently — quote the description.' },
    ]);
    expect(parsed.body).toBe('body\n');
  });

  test('the lenient reader takes block scalars, list items, quotes and booleans', () => {
    const parsed = parseSkillFile('---\nname: "x"\ndescription: >\n  Does a: b\n  and c\nallowed-tools:\n  - Read\n  - Bash(git status)\ndisable-model-invocation: true\nbad: [\n---\n');
    expect(parsed.fields).toEqual({ name: 'x', description: 'Does a: b and c', 'allowed-tools': ['Read', 'Bash(git status)'], 'disable-model-invocation': true });
    expect(parsed.problems[0]!.message).toMatch(/^SKILL\.md front matter is not valid YAML \(line \d+: /);
  });

  test('no front matter, no closing line, or not a mapping is an error that says what to write', () => {
    expect(parseSkillFile('# Just a body\n')).toMatchObject({ fields: undefined, problems: [{ severity: 'error', message: expect.stringContaining('has no front matter: start it with a "---" line') }] });
    expect(parseSkillFile('---\nname: x\n')).toMatchObject({ fields: undefined, problems: [{ severity: 'error', message: expect.stringContaining('no closing "---" line') }] });
    expect(parseSkillFile('---\n- a\n- b\n---\n')).toMatchObject({ fields: undefined, problems: [{ severity: 'error', message: expect.stringContaining('not a set of "key: value" lines') }] });
  });

  test('a BOM and CRLF line ends are accepted; custom tags do not reach the process warnings', () => {
    const warn = jest.spyOn(process, 'emitWarning');
    const parsed = parseSkillFile('\uFEFF---\r\nname: x\r\ndescription: !custom y\r\n---\r\nbody');
    expect(parsed.fields).toEqual({ name: 'x', description: 'y' });
    expect(warn).not.toHaveBeenCalled();
    warn.mockRestore();
  });
});

describe('the Agent Skills name rules', () => {
  test('lowercase letters, digits and single inner hyphens, 1 to 64 characters', () => {
    for (const ok of ['a', 'pdf-processing', 'x2', '9-lives', 'a'.repeat(64)]) expect([ok, skillNameProblem(ok)]).toEqual([ok, undefined]);
    for (const bad of ['', 'PDF', 'pdf_tool', '-pdf', 'pdf-', 'pdf--tool', 'pdf tool', 'pdé', 'a'.repeat(65)]) expect([bad, skillNameProblem(bad)]).toEqual([bad, expect.stringContaining('is invalid')]);
    expect(skillNameProblem('a'.repeat(65))).toContain('(it has 65 characters)');
  });

  test('a name differing from its folder and a description over 1024 characters are warnings; the skill stays', () => {
    const checked = checkSkillFields({ name: 'pdf', description: 'd'.repeat(1100) }, 'pdf-tools');
    expect(checked.name).toBe('pdf');
    expect(checked.description).toHaveLength(1100);
    expect(checked.problems.map((p) => [p.severity, p.message])).toEqual([
      ['warning', 'Skill name "pdf" differs from its folder "pdf-tools"; rename one so they match (it is listed as "pdf").'],
      ['warning', 'The description has 1100 characters (the Agent Skills limit is 1024); shorten it.'],
    ]);
  });

  test('no name: the folder name stands in, with a warning; an invalid name or no description is an error', () => {
    expect(checkSkillFields({ description: 'd' }, 'my-skill')).toMatchObject({ name: 'my-skill', problems: [{ severity: 'warning', message: 'SKILL.md has no name; the folder name "my-skill" is used. Add "name: my-skill" to the front matter.' }] });
    expect(checkSkillFields({ name: 'My Skill', description: 'd' }, 'my-skill')).toMatchObject({ problems: [{ severity: 'error' }] });
    expect(checkSkillFields({ name: 'My Skill', description: 'd' }, 'my-skill').name).toBeUndefined();
    expect(checkSkillFields({ name: 'x' }, 'x')).toMatchObject({ problems: [{ severity: 'error', message: expect.stringContaining('has no description') }] });
    expect(checkSkillFields({ name: 'x', description: 12 }, 'x')).toMatchObject({ problems: [{ severity: 'error', message: 'The description must be text, not number 12: quote it.' }] });
  });

  test('allowed-tools become approval rules: space, comma or list separated, Bash(x:*) as Bash(x *), non-rules reported', () => {
    expect(checkSkillFields({ name: 'x', description: 'd', 'allowed-tools': 'Bash(git:*) Read, Bash(npm run test) Grep' }, 'x').allowedTools).toEqual(['Bash(git *)', 'Read', 'Bash(npm run test)', 'Grep']);
    expect(checkSkillFields({ name: 'x', description: 'd', 'allowed-tools': ['Read', 'Bash(ls -la)'] }, 'x').allowedTools).toEqual(['Read', 'Bash(ls -la)']);
    const bad = checkSkillFields({ name: 'x', description: 'd', 'allowed-tools': 'Read Bash(oops' }, 'x');
    expect(bad.allowedTools).toEqual(['Read']);
    expect(bad.problems).toEqual([{ severity: 'warning', message: 'allowed-tools entry "Bash(oops" is not a tool rule (Rule "Bash(oops" has no closing parenthesis.); it is not granted.' }]);
  });
});

describe('skill arguments', () => {
  test('split on whitespace, quotes group words', () => {
    expect(splitArguments(`a "b c"  'd e' f`)).toEqual(['a', 'b c', 'd e', 'f']);
  });

  test('$ARGUMENTS, $1 … and declared $names are filled; other $WORDS stay', () => {
    expect(expandSkillBody('All: $ARGUMENTS; first $1, second $2, third $3; file $file; home $HOME', 'a.pdf "b c"', ['file'])).toBe('All: a.pdf "b c"; first a.pdf, second b c, third ; file a.pdf; home $HOME');
  });

  test('arguments with no placeholder to fill are added as an ARGUMENTS line; none given, nothing is added', () => {
    expect(expandSkillBody('Do it.\n', 'x y', [])).toBe('Do it.\n\nARGUMENTS: x y');
    expect(expandSkillBody('Do it.\n', '', [])).toBe('Do it.\n');
  });
});
