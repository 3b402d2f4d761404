import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { isTempFileName } from '../../../src/base/fs/atomicWrite';
import { IConfigService } from '../../../src/services/config/config';
import { callTool, text, useAgent } from '../../helpers/agentHarness';
import { executeAfter, hookedRuntime, releaseFifo, replaceWithFifo, replaceWithSymlink } from '../../helpers/pathSwap';
import { makeTempDir, removeDir, writeFiles } from '../../helpers/tempDir';

const fx = useAgent({ builtins: true });

const at = (rel: string) => nodePath.join(fx.dir, rel);
const bytesOf = (rel: string) => fs.readFileSync(at(rel));
const listing = () => (fs.readdirSync(fx.dir, { recursive: true }) as string[]).sort();

/** Writes the files and reads each with Read, as an agent would before editing. */
async function given(files: Record<string, string | Buffer>): Promise<void> {
  writeFiles(fx.dir, files);
  for (const rel of Object.keys(files)) await callTool(fx.agent, 'Read', { path: rel });
}

async function edit(input: Record<string, unknown>): Promise<{ output: string; isError: boolean }> {
  const result = await callTool(fx.agent, 'Edit', input);
  return { output: text(result), isError: result.isError === true };
}

const GREET = [
  'function greet(name) {',
  '\tif (name) {',
  '\t\treturn `Hello, ${name}!`;',
  '\t}',
  "\treturn 'Hello!';",
  '}',
  '',
].join('\n');

describe('Edit replaces exact text', () => {
  beforeEach(() => fx.open());

  test('one occurrence', async () => {
    await given({ 'g.js': GREET });
    expect(await edit({ path: 'g.js', old_string: "\treturn 'Hello!';", new_string: "\treturn 'Hi!';" })).toEqual({
      output: 'Replaced 1 occurrence in g.js (line 5).',
      isError: false,
    });
    expect(bytesOf('g.js').toString()).toBe(GREET.replace("'Hello!'", "'Hi!'"));
    expect(listing()).toEqual(['g.js']);
  });

  test('an empty new_string deletes; a multi-line old_string works', async () => {
    await given({ 'g.js': GREET });
    expect((await edit({ path: 'g.js', old_string: '\tif (name) {\n\t\treturn `Hello, ${name}!`;\n\t}\n', new_string: '' })).output).toBe(
      'Replaced 1 occurrence in g.js (line 2).',
    );
    expect(bytesOf('g.js').toString()).toBe("function greet(name) {\n\treturn 'Hello!';\n}\n");
  });

  test('an old_string that occurs several times is refused with the count and the lines, and the file is left as it was', async () => {
    await given({ 'a.txt': 'x = 1\ny = 2\nx = 3\n\nx = 4\n' });
    const before = bytesOf('a.txt');
    expect(await edit({ path: 'a.txt', old_string: 'x = ', new_string: 'z = ' })).toEqual({
      output:
        'old_string occurs 3 times in "a.txt" (at lines 1, 3, 5). Add more surrounding lines to old_string so that it matches exactly one place, ' +
        'or set replace_all to true to replace all 3.',
      isError: true,
    });
    expect(bytesOf('a.txt')).toEqual(before);
  });

  test('occurrences that overlap make old_string ambiguous too', async () => {
    await given({ 'a.txt': 'aaa\n' });
    expect((await edit({ path: 'a.txt', old_string: 'aa', new_string: 'b' })).output).toBe(
      'old_string occurs 2 times in "a.txt" (at line 1). Add more surrounding lines to old_string so that it matches exactly one place, or set replace_all to true to replace all 2.',
    );
  });

  test('many occurrences list the first ten lines', async () => {
    await given({ 'a.txt': 'x\n'.repeat(25) });
    expect((await edit({ path: 'a.txt', old_string: 'x', new_string: 'y' })).output).toMatch(
      /^old_string occurs 25 times in "a.txt" \(at lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 15 more\)\./,
    );
  });

  test('replace_all replaces every occurrence and reports the count and lines', async () => {
    await given({ 'a.txt': 'x = 1\ny = 2\nx = 3\n\nx = 4\n' });
    expect(await edit({ path: 'a.txt', old_string: 'x', new_string: 'renamed', replace_all: true })).toEqual({
      output: 'Replaced 3 occurrences in a.txt (lines 1, 3, 5).',
      isError: false,
    });
    expect(bytesOf('a.txt').toString()).toBe('renamed = 1\ny = 2\nrenamed = 3\n\nrenamed = 4\n');
  });

  test('replace_all with one occurrence, and with thousands (gathered into large writes)', async () => {
    await given({ 'a.txt': 'one\n', 'b.txt': 'ab'.repeat(50_000) });
    expect((await edit({ path: 'a.txt', old_string: 'one', new_string: 'two', replace_all: true })).output).toBe('Replaced 1 occurrence in a.txt (line 1).');
    expect((await edit({ path: 'b.txt', old_string: 'b', new_string: 'cd', replace_all: true })).output).toBe('Replaced 50,000 occurrences in b.txt (line 1).');
    expect(bytesOf('b.txt').toString()).toBe('acd'.repeat(50_000));
  });

  test('$ patterns in new_string are literal', async () => {
    await given({ 'a.txt': 'price: X\n' });
    await edit({ path: 'a.txt', old_string: 'X', new_string: "$& $1 $$ $` $' $<name>" });
    expect(bytesOf('a.txt').toString()).toBe("price: $& $1 $$ $` $' $<name>\n");
    await edit({ path: 'a.txt', old_string: '$&', new_string: '$$$', replace_all: true });
    expect(bytesOf('a.txt').toString()).toBe("price: $$$ $1 $$ $` $' $<name>\n");
  });

  test('multi-byte characters before and inside the match', async () => {
    await given({ 'u.txt': 'héllo wörld 🎉 ünïcode\n' });
    expect((await edit({ path: 'u.txt', old_string: 'wörld 🎉', new_string: '世界 ✨' })).isError).toBe(false);
    expect(bytesOf('u.txt').toString()).toBe('héllo 世界 ✨ ünïcode\n');
  });

  test('keeps a UTF-8 byte-order mark', async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    await given({ 'b.txt': Buffer.concat([bom, Buffer.from('first\nsecond\n')]) });
    expect((await edit({ path: 'b.txt', old_string: 'first', new_string: '1st' })).output).toBe('Replaced 1 occurrence in b.txt (line 1).');
    expect(bytesOf('b.txt')).toEqual(Buffer.concat([bom, Buffer.from('1st\nsecond\n')]));
  });

  test('keeps the file mode', async () => {
    await given({ 'run.sh': '#!/bin/sh\necho a\n' });
    fs.chmodSync(at('run.sh'), 0o755);
    await edit({ path: 'run.sh', old_string: 'echo a', new_string: 'echo b' });
    expect(fs.statSync(at('run.sh')).mode & 0o777).toBe(0o755);
    expect(bytesOf('run.sh').toString()).toBe('#!/bin/sh\necho b\n');
  });
});

describe('Edit keeps line endings', () => {
  beforeEach(() => fx.open());

  test('a CRLF file: LF in old_string and new_string becomes CRLF, with no doubled CR', async () => {
    await given({ 'w.txt': 'one\r\ntwo\r\nthree\r\n' });
    expect(await edit({ path: 'w.txt', old_string: 'one\ntwo', new_string: 'uno\ndos\nmás' })).toEqual({
      output: 'Replaced 1 occurrence in w.txt (line 1). Line breaks in new_string were written as CRLF, like the rest of the file.',
      isError: false,
    });
    expect(bytesOf('w.txt').toString()).toBe('uno\r\ndos\r\nmás\r\nthree\r\n');
    // old_string sent with CRLF works the same, and a single-line edit changes nothing else.
    expect((await edit({ path: 'w.txt', old_string: 'dos\r\nmás', new_string: 'DOS\nMÁS' })).isError).toBe(false);
    expect((await edit({ path: 'w.txt', old_string: 'three', new_string: '3' })).output).toBe('Replaced 1 occurrence in w.txt (line 4).');
    expect(bytesOf('w.txt').toString()).toBe('uno\r\nDOS\r\nMÁS\r\n3\r\n');
  });

  test('an LF file stays LF when new_string has CRLF', async () => {
    await given({ 'l.txt': 'a\nb\n' });
    await edit({ path: 'l.txt', old_string: 'a\r\nb', new_string: 'x\r\ny' });
    expect(bytesOf('l.txt').toString()).toBe('x\ny\n');
  });

  test('a file with mixed line endings is matched as sent first, and its other lines are untouched', async () => {
    await given({ 'm.txt': 'a\r\nb\nc\r\n' });
    expect((await edit({ path: 'm.txt', old_string: 'b\nc', new_string: 'B\nC' })).isError).toBe(false);
    expect(bytesOf('m.txt').toString()).toBe('a\r\nB\nC\r\n');
  });

  test('in a CRLF file, old and new that differ only in line endings are no change', async () => {
    await given({ 'w.txt': 'a\r\nb\r\n' });
    expect(await edit({ path: 'w.txt', old_string: 'a\r\nb', new_string: 'a\nb' })).toEqual({
      output: "No changes to make: in the file's CRLF line endings, old_string and new_string are the same text.",
      isError: true,
    });
  });
});

describe('Edit refusals say what to do', () => {
  beforeEach(() => fx.open());

  test('identical strings are refused before any I/O', async () => {
    const execution = await fx.agent.registry.get('Edit')!.tool.resolveExecution({ path: 'missing.txt', old_string: 'a', new_string: 'a' } as never);
    expect(execution).toEqual({
      output: 'No changes to make: old_string and new_string are exactly the same. Put the new text in new_string.',
      isError: true,
    });
  });

  test.each<[string, Record<string, string | Buffer>, string, string]>([
    ['a missing file', {}, 'nope.txt', '"nope.txt" does not exist. Edit changes existing files: to create a file, use Write. To find a file, use Glob.'],
    ['a directory', { 'src/a.ts': '' }, 'src', '"src" is a directory, not a file. Edit changes one file: give the path of a file.'],
    ['a secret', {}, '.env', '".env" matches a sensitive-file pattern (env file, credentials, private key). Access is blocked to protect secrets.'],
  ])('%s', async (_name, files, path, message) => {
    writeFiles(fx.dir, files);
    expect(await edit({ path, old_string: 'a', new_string: 'b' })).toEqual({ output: message, isError: true });
  });

  test.each<[string, Buffer, string]>([
    [
      'Latin-1 text',
      Buffer.from('ok\ncaf\xe9 au lait\n', 'latin1'),
      '"f.txt" is not valid UTF-8 (the first invalid byte is on line 2); it may be Latin-1 or another encoding. Edit only changes UTF-8 text files; the file was left unchanged. ' +
        'Change it with Bash instead (e.g. sed), or convert it to UTF-8 first (iconv -f <encoding> -t UTF-8).',
    ],
    [
      'UTF-16 text',
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('caf au lait\n', 'utf16le')]),
      '"f.txt" is UTF-16 text. Edit only changes UTF-8 text files; the file was left unchanged. Convert it to UTF-8 first (e.g. with Bash: iconv -f UTF-16 -t UTF-8), or rewrite it whole with Write.',
    ],
    ['a PNG image', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x63, 0x61, 0x66]), '"f.txt" is a PNG image, not a text file. Edit only changes UTF-8 text files; the file was left unchanged.'],
    ['NUL bytes past the header', Buffer.concat([Buffer.from('caf\n'.repeat(5000)), Buffer.from([0])]), '"f.txt" looks like a binary file (it contains NUL bytes). Edit only changes UTF-8 text files; the file was left unchanged.'],
    ['a truncated UTF-8 sequence at the end', Buffer.concat([Buffer.from('caf\n'), Buffer.from([0xe2, 0x82])]), '"f.txt" is not valid UTF-8 (the first invalid byte is on line 2); it may be Latin-1 or another encoding. Edit only changes UTF-8 text files; the file was left unchanged. Change it with Bash instead (e.g. sed), or convert it to UTF-8 first (iconv -f <encoding> -t UTF-8).'],
  ])('%s is refused and left byte-identical', async (_name, content, message) => {
    await given({ 'f.txt': content });
    expect(await edit({ path: 'f.txt', old_string: 'caf', new_string: 'tea' })).toEqual({ output: message, isError: true });
    expect(bytesOf('f.txt')).toEqual(content);
    expect(listing()).toEqual(['f.txt']);
  });

  test('a file over edit.maxFileBytes is refused', async () => {
    await fx.app.dispose();
    fx.open({ config: { edit: { maxFileBytes: 1000 } } });
    await given({ 'big.txt': 'x'.repeat(2000) });
    expect(await edit({ path: 'big.txt', old_string: 'x', new_string: 'y' })).toEqual({
      output: '"big.txt" is 2.0 KB, larger than the 1000 B Edit handles. Change it with Bash instead (e.g. sed), or raise the limit edit.maxFileBytes in the configuration.',
      isError: true,
    });
  });
});

describe('Edit points at the closest match when old_string is not found', () => {
  beforeEach(() => fx.open());

  const notFound = (rest: string) => ({ output: `old_string was not found in "g.js". ${rest}`, isError: true });

  test('a difference only in indentation (spaces for tabs)', async () => {
    await given({ 'g.js': GREET });
    expect(await edit({ path: 'g.js', old_string: '    if (name) {\n        return `Hello, ${name}!`;\n    }', new_string: 'x' })).toEqual(
      notFound(
        'The closest match, at lines 2-4, differs only in indentation (the file indents with tabs where old_string has spaces):\n' +
          '2\t\tif (name) {\n3\t\t\treturn `Hello, ${name}!`;\n4\t\t}\n' +
          'Copy the lines exactly as the file has them, including their tabs and spaces.',
      ),
    );
    expect(bytesOf('g.js').toString()).toBe(GREET);
  });

  test('a difference only in trailing whitespace', async () => {
    await given({ 'g.js': GREET });
    expect(await edit({ path: 'g.js', old_string: "\treturn 'Hello!';  \n}", new_string: 'x' })).toEqual(
      notFound(
        "The closest match, at lines 5-6, differs only in whitespace at the end of a line or of old_string:\n5\t\treturn 'Hello!';\n6\t}\n" +
          'Copy the lines exactly as the file has them, with their trailing spaces, tabs and line breaks.',
      ),
    );
  });

  test('a difference in whitespace inside a line', async () => {
    await given({ 'g.js': GREET });
    expect(await edit({ path: 'g.js', old_string: 'if(name){', new_string: 'x' })).toEqual(
      notFound('The closest match, at line 2, differs only in whitespace (spaces, tabs or line breaks):\n2\t\tif (name) {\nCopy the lines exactly as the file has them.'),
    );
  });

  test("Read's line-number prefixes in old_string", async () => {
    await given({ 'g.js': GREET });
    expect(await edit({ path: 'g.js', old_string: '2\t\tif (name) {\n3\t\t\treturn `Hello, ${name}!`;', new_string: 'x' })).toEqual(
      notFound(
        'old_string includes the line-number prefixes that Read shows ("12<TAB>"); they are not part of the file, so leave them out. Without them, the text matches at lines 2-3.',
      ),
    );
  });

  test('several lines, some of them changed', async () => {
    await given({ 'g.js': GREET });
    expect(await edit({ path: 'g.js', old_string: '\tif (name) {\n\t\treturn `Hi, ${name}!`;\n\t}', new_string: 'x' })).toEqual(
      notFound(
        "The most similar text is at lines 2-4, where 2 of old_string's 3 lines are identical (ignoring indentation):\n" +
          '2\t\tif (name) {\n3\t\t\treturn `Hello, ${name}!`;\n4\t\t}\n' +
          'If that is the place, copy old_string exactly from it; otherwise Read the file again.',
      ),
    );
  });

  test('one line with a typo', async () => {
    await given({ 'g.js': GREET });
    expect(await edit({ path: 'g.js', old_string: "return 'Helo!';", new_string: 'x' })).toEqual(
      notFound("The most similar text is at line 5 (97% similar):\n5\t\treturn 'Hello!';\nIf that is the place, copy old_string exactly from it; otherwise Read the file again."),
    );
  });

  test('nothing similar', async () => {
    await given({ 'g.js': GREET });
    expect(await edit({ path: 'g.js', old_string: 'SELECT * FROM users WHERE id = 7', new_string: 'x' })).toEqual(
      notFound('No similar text was found either. The file may differ from what you expect: Read it again and copy old_string exactly from it.'),
    );
  });

  test('new_string already in the file: the edit may have been made already', async () => {
    await given({ 'g.js': GREET });
    expect((await edit({ path: 'g.js', old_string: "\treturn 'Howdy!';", new_string: "\treturn 'Hello!';" })).output).toMatch(
      /Note: new_string already appears in the file at line 5; the change may have been made already\.$/,
    );
  });

  test("Read's truncation marker in old_string", async () => {
    await given({ 'g.js': GREET });
    expect((await edit({ path: 'g.js', old_string: 'function greet(na [...line truncated: 9,000 bytes in total]', new_string: 'x' })).output).toMatch(
      /^old_string was not found in "g\.js"\. It contains the "\[\.\.\.line truncated: …\]" marker that Read adds to long lines; that marker is not in the file\. Use a shorter old_string that stops before the cut\. /,
    );
  });

  test('a file that mixes line endings, where old_string has the wrong mix', async () => {
    await given({ 'm.txt': 'a\r\nb\nc\r\n' });
    expect((await edit({ path: 'm.txt', old_string: 'a\nb\nc', new_string: 'x' })).output).toBe(
      'old_string was not found in "m.txt". The same text is at lines 1-3, but with other line endings: the file mixes CRLF and LF there.\n' +
        '1\ta\n2\tb\n3\tc\n' +
        "Copy old_string from those lines with their exact line endings, or make the line endings uniform first (e.g. with Bash: sed -i 's/\\r$//' FILE).",
    );
  });

  test('a near match in a CRLF file is found and shown without CR', async () => {
    await given({ 'w.js': GREET.replace(/\n/g, '\r\n') });
    expect((await edit({ path: 'w.js', old_string: 'if(name){', new_string: 'x' })).output).toBe(
      'old_string was not found in "w.js". The closest match, at line 2, differs only in whitespace (spaces, tabs or line breaks):\n2\t\tif (name) {\nCopy the lines exactly as the file has them.',
    );
  });

  test('the shown lines are bounded', async () => {
    const long = Array.from({ length: 30 }, (_, i) => `    line number ${i} ${'y'.repeat(300)}`).join('\n');
    await given({ 'l.txt': long });
    const out = (await edit({ path: 'l.txt', old_string: long.replace(/^ {4}/gm, '\t'), new_string: 'x' })).output;
    expect(out.split('\n')).toHaveLength(1 + 12 + 1 + 1);
    expect(out).toContain(`\n1\t    line number 0 ${'y'.repeat(240 - 18)} [...line truncated]\n`);
    expect(out).toContain('\n[… 18 more lines]\n');
  });
});

describe('Edit on large files', () => {
  beforeEach(() => fx.open());

  test('an edit near the end of a 20 MB file changes only that place', async () => {
    const line = 'const value = "some typical line of source text";\n';
    const body = line.repeat(400_000);
    await given({ 'big.js': body + 'const last = 1;\n' });
    expect(await edit({ path: 'big.js', old_string: 'const last = 1;', new_string: 'const last = 2;' })).toEqual({
      output: 'Replaced 1 occurrence in big.js (line 400001).',
      isError: false,
    });
    const after = bytesOf('big.js');
    expect(after.length).toBe(Buffer.byteLength(body) + 16);
    expect(after.subarray(after.length - 16).toString()).toBe('const last = 2;\n');
    expect(after.subarray(0, 1000).toString()).toBe(body.slice(0, 1000));
  });

  test('over the near-match size, a miss says to use Grep', async () => {
    await given({ 'big.txt': 'abc\n'.repeat(2_200_000) });
    expect((await edit({ path: 'big.txt', old_string: 'xyz', new_string: 'q' })).output).toBe(
      'old_string was not found in "big.txt". The file is larger than 8.0 MB, so no near match was searched for: use Grep to find the text, then Read around it.',
    );
  });
});

describe('Edit uses exactly the file it was resolved with', () => {
  let outside = '';
  beforeEach(() => {
    outside = makeTempDir('toolhost-outside-');
  });
  afterEach(() => {
    releaseFifo(at('a.txt'));
    removeDir(outside);
  });

  test('a file swapped for a link to .env is refused: .env is neither read nor copied into the file', async () => {
    fx.open({ config: { staleGuard: { enabled: false } } });
    writeFiles(fx.dir, { 'a.txt': 'KEY=value\n', '.env': 'KEY=value\nSECRET=hunter2\n' });
    const result = await executeAfter(fx.agent, 'Edit', { path: 'a.txt', old_string: 'KEY=value', new_string: 'KEY=other' }, () =>
      replaceWithSymlink(at('a.txt'), at('.env')),
    );
    expect(result).toEqual({
      isError: true,
      output: `"a.txt" changed between the approval and the edit (it is now a link to "${fx.dir}/.env"); nothing was changed. Check the path and call again.`,
    });
    expect(fs.readlinkSync(at('a.txt'))).toBe(at('.env'));
    expect(bytesOf('.env').toString()).toBe('KEY=value\nSECRET=hunter2\n');
  });

  test('a folder on the path swapped for a link outside the workspace is refused, and the file there is left alone', async () => {
    fx.open();
    await given({ 'sub/a.txt': 'KEY=value\n' });
    writeFiles(outside, { 'a.txt': 'KEY=value\n' });
    const result = await executeAfter(fx.agent, 'Edit', { path: 'sub/a.txt', old_string: 'KEY=value', new_string: 'KEY=other' }, () =>
      replaceWithSymlink(at('sub'), outside),
    );
    expect(text(result)).toBe(
      `"sub/a.txt" changed between the approval and the edit (a folder on its path is now a link, so it leads to "${outside}/a.txt"); nothing was changed. Check the path and call again.`,
    );
    expect(fs.readFileSync(nodePath.join(outside, 'a.txt'), 'utf8')).toBe('KEY=value\n');
    expect(fs.readdirSync(outside)).toEqual(['a.txt']);
  });

  test('a file swapped for a FIFO right before it is opened is refused at once instead of blocking', async () => {
    let armed = false;
    const swapOnOpen = (path: string) => {
      if (!armed || path !== at('a.txt')) return;
      armed = false;
      replaceWithFifo(at('a.txt'));
    };
    fx.open({ runtime: hookedRuntime({ beforeOpen: swapOnOpen }) });
    await given({ 'a.txt': 'KEY=value\n' });
    armed = true;
    expect(await edit({ path: 'a.txt', old_string: 'KEY=value', new_string: 'KEY=other' })).toEqual({
      isError: true,
      output: '"a.txt" is not a regular file (it is a FIFO (named pipe)). Edit only changes regular files; nothing was changed.',
    });
    expect(fs.statSync(at('a.txt')).isFIFO()).toBe(true);
  });

  test('a change another program makes while the edit is written is kept, and the edit refused', async () => {
    let armed = false;
    const changeBeforeRename = (path: string) => {
      if (!armed || !isTempFileName(nodePath.basename(path))) return;
      armed = false;
      fs.writeFileSync(at('a.txt'), 'KEY=value\nTHEIRS=1\n');
    };
    fx.open({ runtime: hookedRuntime({ beforeSync: changeBeforeRename }) });
    await given({ 'a.txt': 'KEY=value\n' });
    armed = true;
    expect(await edit({ path: 'a.txt', old_string: 'KEY=value', new_string: 'KEY=other' })).toEqual({
      isError: true,
      output: '"a.txt" was changed by another program while this Edit was in progress; it was left as that program left it, and nothing was written. Read it again, then call again.',
    });
    expect(bytesOf('a.txt').toString()).toBe('KEY=value\nTHEIRS=1\n');
    expect(listing()).toEqual(['a.txt']);
  });
});

describe('Edit resolution', () => {
  beforeEach(() => fx.open());

  test('declares a write of the canonical path, an Edit rule, and a bounded diff display', async () => {
    writeFiles(fx.dir, { 'src/a.ts': 'x' });
    const tool = fx.agent.registry.get('Edit')!.tool;
    const execution = await tool.resolveExecution({ path: './src/a.ts', old_string: 'o'.repeat(9000), new_string: 'n', replace_all: true } as never);
    if (execution.isError) throw new Error('unexpected');
    const canonical = at('src/a.ts');
    expect(execution.accesses).toEqual([{ kind: 'file', op: 'write', path: canonical }]);
    expect(execution.approvalRule).toBe(`Edit(${canonical})`);
    expect(execution.display).toEqual({ kind: 'diff', path: canonical, before: `${'o'.repeat(8000)}\n[… 1,000 more characters not shown]`, after: 'n' });
    expect(execution.description).toBe('Editing src/a.ts (all occurrences)');
    expect(execution.matchesRule!('src/*.ts')).toBe(true);
    expect(execution.matchesRule!('!src/**')).toBe(false);
  });

  test('the description renders the size limit from config', () => {
    const tool = fx.agent.registry.get('Edit')!.tool;
    expect(tool.description).toContain('Only UTF-8 text files up to 128 MB can be edited.');
    fx.app.get(IConfigService).update({ edit: { maxFileBytes: 5 * 1024 * 1024 } });
    expect(tool.description).toContain('Only UTF-8 text files up to 5.0 MB can be edited.');
  });
});
