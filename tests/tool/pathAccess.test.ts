import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { isPathInside, PathSecurityError, resolvePathAccess, resolvePathAccessPath, type PathAccessContext } from '../../src/tool/pathAccess';
import { makeTempDir, removeDir, writeFiles } from '../helpers/tempDir';

let root: string;
let ws: string;
let outside: string;
let home: string;

beforeAll(() => {
  root = makeTempDir();
  ws = nodePath.join(root, 'ws');
  outside = nodePath.join(root, 'outside');
  home = nodePath.join(root, 'home');
  writeFiles(root, {
    'ws/src/a.ts': 'a',
    'ws/.env': 'SECRET=1',
    'ws/.env.example': 'SECRET=',
    'outside/notes.txt': 'n',
    'home/.ssh/id_rsa': 'key',
    'home/notes.md': 'h',
    'extra/b.ts': 'b',
  });
  fs.symlinkSync(nodePath.join(outside, 'notes.txt'), nodePath.join(ws, 'link-out'));
  fs.symlinkSync(outside, nodePath.join(ws, 'dir-out'));
  fs.symlinkSync(nodePath.join(home, '.ssh', 'id_rsa'), nodePath.join(ws, 'innocent.txt'));
  fs.symlinkSync(nodePath.join(ws, 'src', 'a.ts'), nodePath.join(ws, 'link-in'));
  fs.symlinkSync(nodePath.join(ws, 'loop-b'), nodePath.join(ws, 'loop-a'));
  fs.symlinkSync(nodePath.join(ws, 'loop-a'), nodePath.join(ws, 'loop-b'));
});
afterAll(() => removeDir(root));

function ctx(extra: Partial<PathAccessContext> = {}): PathAccessContext {
  return { cwd: ws, homeDir: home, verb: 'read a file', ...extra };
}

function securityError(fn: () => unknown): PathSecurityError {
  try {
    fn();
  } catch (error) {
    if (error instanceof PathSecurityError) return error;
    throw error;
  }
  throw new Error('expected a PathSecurityError');
}

describe('resolvePathAccessPath()', () => {
  test.each<[string, string]>([
    ['src/a.ts', 'ws/src/a.ts'],
    ['./src/../src/a.ts', 'ws/src/a.ts'],
    ['src/new-file.ts', 'ws/src/new-file.ts'],
    ['missing-dir/deeper/x.ts', 'ws/missing-dir/deeper/x.ts'],
    ['.env.example', 'ws/.env.example'],
    ['link-in', 'ws/src/a.ts'],
    ['~/notes.md', 'home/notes.md'],
  ])('%s resolves to %s', (raw, expected) => {
    expect(resolvePathAccessPath(raw, ctx())).toBe(nodePath.join(root, expected));
  });

  test('an absolute path outside the workspace is allowed and marked outside', () => {
    const access = resolvePathAccess(nodePath.join(outside, 'notes.txt'), ctx());
    expect(access).toEqual({ path: nodePath.join(outside, 'notes.txt'), lexicalPath: nodePath.join(outside, 'notes.txt'), outsideWorkspace: true });
  });

  test('an additional directory counts as inside', () => {
    expect(resolvePathAccess('../extra/b.ts', ctx({ additionalDirs: [nodePath.join(root, 'extra')] })).outsideWorkspace).toBe(false);
  });

  test.each<[string, string, string]>([
    ['', 'PATH_INVALID', 'Path cannot be empty.'],
    ['  ', 'PATH_INVALID', 'Path cannot be empty.'],
    ['a\0b', 'PATH_INVALID', '"a\\0b" contains a NUL character.'],
    ['.env', 'PATH_SENSITIVE', '".env" matches a sensitive-file pattern (env file, credentials, private key). Access is blocked to protect secrets.'],
    ['~/.ssh/id_rsa', 'PATH_SENSITIVE', '"~/.ssh/id_rsa" matches a sensitive-file pattern (env file, credentials, private key). Access is blocked to protect secrets.'],
    ['../outside/notes.txt', 'PATH_OUTSIDE_WORKSPACE', '"../outside/notes.txt" is not an absolute path. You must provide an absolute path to read a file outside the working directory.'],
    ['loop-a', 'PATH_INVALID', '"loop-a" cannot be resolved: too many levels of symbolic links.'],
  ])('%j is refused with %s', (raw, code, message) => {
    const error = securityError(() => resolvePathAccessPath(raw, ctx()));
    expect(error.code).toBe(code);
    expect(error.message).toBe(message);
    expect(error.rawPath).toBe(raw);
  });

  test('a symlink inside the workspace that points at a secret does not get through', () => {
    const error = securityError(() => resolvePathAccessPath('innocent.txt', ctx()));
    expect(error.code).toBe('PATH_SENSITIVE');
    expect(error.message).toBe(
      `"innocent.txt" is a symbolic link to "${nodePath.join(home, '.ssh', 'id_rsa')}", which matches a sensitive-file pattern (env file, credentials, private key). Access is blocked to protect secrets.`,
    );
    // Written absolute, it is still refused.
    expect(securityError(() => resolvePathAccessPath(nodePath.join(ws, 'innocent.txt'), ctx())).code).toBe('PATH_SENSITIVE');
  });

  test.each(['link-out', 'dir-out/notes.txt', 'dir-out/new.txt'])('a symlink inside the workspace that leads outside does not get through: %s', (raw) => {
    const error = securityError(() => resolvePathAccessPath(raw, ctx()));
    expect(error.code).toBe('PATH_OUTSIDE_WORKSPACE');
    expect(error.message).toMatch(new RegExp(`^"${raw}" is a symbolic link that resolves to ".*outside.*", outside the working directory\\. To read a file there, pass that absolute path explicitly\\.$`));
    // Even written as an absolute path inside the workspace.
    expect(securityError(() => resolvePathAccessPath(nodePath.join(ws, raw), ctx())).code).toBe('PATH_OUTSIDE_WORKSPACE');
  });

  test('outside: never refuses absolute paths outside the workspace too', () => {
    const error = securityError(() => resolvePathAccessPath(nodePath.join(outside, 'notes.txt'), ctx({ outside: 'never' })));
    expect(error.code).toBe('PATH_OUTSIDE_WORKSPACE');
    expect(error.message).toBe(`"${nodePath.join(outside, 'notes.txt')}" is outside the working directory (${ws}). Paths outside the working directory are not allowed here.`);
  });

  test('checkSensitive: false lets a caller list secrets without reading them', () => {
    expect(resolvePathAccessPath('.env', ctx({ checkSensitive: false }))).toBe(nodePath.join(ws, '.env'));
  });

  test('the verb appears in the message', () => {
    expect(securityError(() => resolvePathAccessPath('../x', ctx({ verb: 'write or edit a file' }))).message).toContain('to write or edit a file outside');
  });
});

describe('isPathInside()', () => {
  test('a name that begins with ".." below the root is inside it; the parent and its other children are not', () => {
    expect(isPathInside('/ws/..data/x', '/ws')).toBe(true);
    expect(isPathInside('/ws/..', '/ws')).toBe(false);
    expect(isPathInside('/ws/../x', '/ws')).toBe(false);
    expect(isPathInside('/wsx/a', '/ws')).toBe(false);
  });

  test('agrees with path.relative on resolved and unresolved paths alike', () => {
    // The reference: what path.resolve makes of both sides, compared by segments.
    const reference = (path: string, root: string): boolean => {
      const p = nodePath.resolve(path).split('/').filter(Boolean);
      const r = nodePath.resolve(root).split('/').filter(Boolean);
      return r.length <= p.length && r.every((name, i) => p[i] === name);
    };
    const parts = ['', '/', 'a', 'ab', '..', '.', '..a', 'a.', 'b', '//'];
    const paths = new Set<string>(['/']);
    for (const x of parts) for (const y of parts) for (const z of ['', '/', 'a', '..']) paths.add(`/${x}/${y}${z ? `/${z}` : ''}`.replace(/^\/\//, '/'));
    for (const extra of ['/a', '/a/', '/a/b', '/ab', '/a/..a', '/a/./b', '/a//b', 'a/b', 'a', '.']) paths.add(extra);
    const all = [...paths];
    const disagreements: string[] = [];
    for (const path of all) {
      for (const root of all) if (isPathInside(path, root) !== reference(path, root)) disagreements.push(`${path} in ${root}`);
    }
    expect(all.length ** 2).toBeGreaterThan(10_000);
    expect(disagreements).toEqual([]);
  });
});
