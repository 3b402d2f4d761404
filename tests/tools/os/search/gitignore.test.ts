import { GitignoreRules, parseGitignoreLine } from '../../../../src/tools/os/search/gitignore';
import { SENSITIVE_IGNORE_RULES } from '../../../../src/tools/os/search/sensitiveIgnore';
import { isSensitivePath } from '../../../../src/tool/sensitivePaths';

describe('gitignore rules', () => {
  // [rules, path, isDir, verdict]
  const cases: Array<[string, string, boolean, 'ignore' | 'whitelist' | undefined]> = [
    ['*.log', 'a.log', false, 'ignore'],
    ['*.log', 'deep/dir/a.log', false, 'ignore'],
    ['*.log', 'a.txt', false, undefined],
    ['build/', 'build', true, 'ignore'],
    ['build/', 'build', false, undefined],
    ['build/', 'src/build', true, 'ignore'],
    ['build/', 'build/out.js', false, undefined], // a rule never applies through a parent folder
    ['/build', 'build', true, 'ignore'],
    ['/build', 'src/build', true, undefined],
    ['src/*.ts', 'src/a.ts', false, 'ignore'],
    ['src/*.ts', 'src/deep/a.ts', false, undefined],
    ['src/*.ts', 'lib/src/a.ts', false, undefined],
    ['src/**/*.ts', 'src/deep/a.ts', false, 'ignore'],
    ['src/**/*.ts', 'src/a.ts', false, 'ignore'],
    ['**/gen', 'a/b/gen', true, 'ignore'],
    ['dist/**', 'dist/a.js', false, 'ignore'],
    ['dist/**', 'dist', true, undefined],
    ['*.log\n!keep.log', 'keep.log', false, 'whitelist'],
    ['!keep.log\n*.log', 'keep.log', false, 'ignore'],
    ['# comment\n\n  \n*.tmp', 'x.tmp', false, 'ignore'],
    ['\\#notes', '#notes', false, 'ignore'],
    ['\\!bang', '!bang', false, 'ignore'],
    ['trailing   ', 'trailing', false, 'ignore'],
    ['space\\ ', 'space ', false, 'ignore'],
    ['*.{js,ts}', 'a.ts', false, 'ignore'],
    ['a?c', 'abc', false, 'ignore'],
    ['a?c', 'a/c', false, undefined],
    ['[abc].txt', 'b.txt', false, 'ignore'],
    ['*', '.hidden', false, 'ignore'],
    ['Makefile', 'makefile', false, undefined],
    ['\uFEFF*.bak', 'a.bak', false, 'ignore'],
    // Read as rg's globset reads them (globRegex.ts), not as regex syntax:
    ['[!a]x', 'bx', false, 'ignore'],
    ['[!a]x', 'ax', false, undefined],
    ['[^a]x', 'ax', false, undefined],
    ['*|b', 'a.txt', false, undefined],
    ['*|b', 'a|b', false, 'ignore'],
    ['b(2).txt', 'b(2).txt', false, 'ignore'],
    ['b(2).txt', 'b2.txt', false, undefined],
    ['d|e.txt', 'e.txt', false, undefined],
    ['[x].txt', '[x].txt', false, undefined],
    ['[x].txt', 'x.txt', false, 'ignore'],
    ['\\b', 'b', false, 'ignore'],
    ['\\1', '1', false, 'ignore'],
    ['a\\b', 'a\\b', false, undefined],
    ['[\\b]x', '\\x', false, 'ignore'],
    ['[]a]', ']', false, 'ignore'],
    ['[a-]', '-', false, 'ignore'],
    ['{a,{b,c}}.md', 'c.md', false, 'ignore'],
    ['a,b', 'a,b', false, 'ignore'],
    ['[ab', '[ab', false, 'ignore'],
    ['[z-a]', 'q', false, undefined],
    ['a}', 'a}', false, undefined],
    // Bytes, as rg and git count them: ü is two.
    ['?.txt', 'ü.txt', false, undefined],
    ['??.txt', 'ü.txt', false, 'ignore'],
    ['[ü].txt', 'ü.txt', false, undefined],
    ['ü*', 'über', false, 'ignore'],
    ['**/日本/*.md', 'a/日本/x.md', false, 'ignore'],
    // A negated set matches `/` too in rg, so this name pattern reaches into a folder (docs/tools.md).
    ['a[!x]b', 'a/b', false, 'ignore'],
    ['a?b', 'a/b', false, undefined],
    ['**', 'a/b', false, 'ignore'],
    ['a**b', 'a/x/b', false, undefined],
    ['a**b', 'axyb', false, 'ignore'],
  ];
  test.each(cases)('rules %j on %j (dir: %j) → %j', (rules, path, isDir, verdict) => {
    expect(GitignoreRules.parse(rules).match(path, isDir)).toBe(verdict);
  });

  test('blank lines and comments make no rule; CRLF files parse', () => {
    expect(parseGitignoreLine('')).toBeUndefined();
    expect(parseGitignoreLine('# x')).toBeUndefined();
    expect(parseGitignoreLine('/')).toBeUndefined();
    expect(GitignoreRules.parse('a.txt\r\nb.txt\r\n').rules.map((r) => r.source)).toEqual(['a.txt', 'b.txt']);
  });
});

describe('the secrets ignore file given to ripgrep', () => {
  const rules = GitignoreRules.parse(SENSITIVE_IGNORE_RULES);
  const samples = [
    '.env', '.env.local', '.env.production', '.env.example', '.env.sample', '.env.template', 'sub/.env', '.envrc', 'env',
    'id_rsa', 'id_rsa.pub', 'id_rsa-old', 'id_rsa_2', 'id_rsa.bak', 'id_rsa.key', 'id_ed25519', 'id_ed25519.pub', 'id_ecdsa_sk', 'id_rsa-x.pub', 'id_rsax',
    'server.pem', '.pem', 'key.key', 'store.p12', 'a.pfx', 'k.jks', 'x.keystore', 'putty.ppk', 'pem.txt',
    '.netrc', '_netrc', '.pgpass', '.npmrc', '.pypirc', '.git-credentials', '.htpasswd', '.vault-token', '.boto', '.s3cfg', 'credentials', 'secring.gpg',
    '.ssh/config', '.ssh/known_hosts', '.ssh/authorized_keys', '.ssh/my_key', '.ssh/my_key.pub', '.ssh/sub/known_hosts', 'home/.ssh/deploy',
    '.aws/config', '.aws/credentials', '.aws/sso/cache/x.json', '.aws/config/x', '.gcp/key.json',
    '.config/gcloud/properties.json', '.config/gcloud/credentials.db', '.config/gcloud/application_default_credentials.json', '.config/gcloud/access_tokens.db',
    '.azure/config', '.azure/msal_token_cache.json', '.kube/config', '.kube/cache/x', '.docker/config.json', '.docker/daemon.json',
    '.password-store/a.gpg', '.config/gh/hosts.yml', '.config/gh/config.yml', '.gnupg/gpg.conf', '.gnupg/private-keys-v1.d/x.key', '.gnupg/pubring.kbx',
    'src/credentials/index.ts', 'src/.env.ts', 'README.md', 'keys/readme.txt',
  ];

  test.each(samples)('never leaves out a file that is not a secret: %s', (path) => {
    if (rules.match(path, false) === 'ignore') expect(isSensitivePath(path)).toBe(true);
  });

  test('leaves out the common secrets, so ripgrep never opens them', () => {
    const ignored = samples.filter((p) => rules.match(p, false) === 'ignore');
    expect(ignored).toEqual(expect.arrayContaining(['.env', '.env.local', 'id_rsa', 'id_ed25519', 'server.pem', '.npmrc', 'credentials', '.ssh/my_key', '.aws/credentials', '.docker/config.json']));
    expect(ignored.length).toBeGreaterThan(samples.filter(isSensitivePath).length * 0.8);
  });

  test('never leaves out a folder', () => {
    for (const dir of ['credentials', '.ssh', '.env', 'id_rsa', '.aws', 'x.pem', '.password-store', '.kube/cache']) {
      expect([dir, rules.match(dir, true)]).not.toEqual([dir, 'ignore']);
    }
  });
});
