import {
  BACKUP_SUFFIXES,
  ENV_TEMPLATES,
  isSensitivePath,
  matchesSensitiveRules,
  sensitivePathsBelow,
  SENSITIVE_BASENAMES,
  SENSITIVE_EXTENSIONS,
  SSH_KEY_PREFIXES,
} from '../../src/tool/sensitivePaths';

describe('isSensitivePath()', () => {
  test.each<[string, boolean]>([
    ['/w/.env', true],
    ['/w/.ENV', true],
    ['/w/.env.local', true],
    ['/w/.env.production', true],
    ['/w/.env.example', false],
    ['/w/.env.sample', false],
    ['/w/.env.template', false],
    ['/w/.envrc', false],
    ['/w/env.ts', false],
    ['/home/u/.ssh/id_rsa', true],
    ['/w/id_rsa', true],
    ['/w/id_ed25519', true],
    ['/w/id_ecdsa_sk', true],
    ['/w/id_rsa.pub', false],
    ['/w/id_rsa-old', true],
    ['/w/id_rsa.bak', true],
    ['/w/id_rsa_notes.md', true],
    ['/home/u/.ssh/known_hosts', false],
    ['/home/u/.ssh/config', false],
    ['/home/u/.ssh/authorized_keys', false],
    ['/home/u/.ssh/deploy_key', true],
    ['/home/u/.ssh/deploy_key.pub', false],
    ['/home/u/.aws/credentials', true],
    ['/home/u/.aws/config', false],
    ['/home/u/.aws/sso/cache/token.json', true],
    ['/home/u/.gcp/credentials', true],
    ['/home/u/.config/gcloud/application_default_credentials.json', true],
    ['/home/u/.config/gcloud/credentials.db', true],
    ['/home/u/.kube/config', true],
    ['/home/u/.docker/config.json', true],
    ['/home/u/.docker/daemon.json', false],
    ['/home/u/.config/gh/hosts.yml', true],
    ['/home/u/.netrc', true],
    ['/home/u/_netrc', true],
    ['/home/u/.pgpass', true],
    ['/w/.npmrc', true],
    ['/w/.pypirc', true],
    ['/home/u/.git-credentials', true],
    ['/w/credentials', true],
    ['/w/credentials.json', false],
    ['/w/certs/server.key', true],
    ['/w/certs/server.pem', true],
    ['/w/certs/store.p12', true],
    ['/w/certs/store.pfx', true],
    ['/w/app.keystore', true],
    ['/w/src/keys.ts', false],
    ['/w/.key', false],
    ['/home/u/.gnupg/private-keys-v1.d/ABC.key', true],
    ['/home/u/.gnupg/gpg.conf', false],
    ['/w/src/index.ts', false],
    ['/w/README.md', false],
    ['C:\\Users\\u\\.ssh\\id_rsa', true],
  ])('%s → %s', (path, expected) => {
    expect(isSensitivePath(path)).toBe(expected);
  });
});

describe('the gate of isSensitivePath() and of sensitivePathsBelow()', () => {
  // Paths built from the pieces the rules look for (names, prefixes, suffixes, extensions,
  // directories, in mixed case, with either separator, trailing slashes) and from near misses:
  // the quick gate must let through every path the rules call sensitive.
  test('lets every sensitive path through to the rules (generated paths)', () => {
    const names = [
      ...SENSITIVE_BASENAMES,
      ...ENV_TEMPLATES,
      '.env.local',
      '.envrc',
      ...SSH_KEY_PREFIXES.flatMap((p) => [p, `${p}.pub`, `${p}-old`, `${p}_x`, ...[...BACKUP_SUFFIXES].map((s) => p + s)]),
      ...SENSITIVE_EXTENSIONS.flatMap((e) => [e, `a${e}`, `a${e}.txt`, `a${e.toUpperCase()}`]),
      'known_hosts',
      'config',
      'config.json',
      'hosts.yml',
      'pubring.kbx',
      'gpg.conf',
      'x.pub',
      'index.ts',
      'a.tar.gz',
    ];
    const dirs = ['', '', '', 'w', 'src', 'lib', 'node_modules/x', '.ssh', '.gnupg', '.aws', '.gcp', '.config', '.config/gcloud', '.azure', '.kube', '.docker', '.password-store', '.config/gh', 'gh', 'x.ssh', '.ssh.d'];
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const mixCase = (text: string): string => [...text].map((ch) => (random(3) === 0 ? ch.toUpperCase() : ch)).join('');
    let sensitive = 0;
    for (let i = 0; i < 20_000; i++) {
      const parts = ['home', dirs[random(dirs.length)]!, dirs[random(dirs.length)]!, names[random(names.length)]!].filter(Boolean);
      if (random(4) === 0) parts.push(names[random(names.length)]!);
      const sep = random(5) === 0 ? '\\' : '/';
      const path = mixCase((random(2) === 0 ? sep : '') + parts.join('/').replace(/\//g, sep) + (random(10) === 0 ? sep : ''));
      const expected = matchesSensitiveRules(path);
      if (expected) sensitive++;
      if (isSensitivePath(path) !== expected) throw new Error(`the gate disagrees with the rules on ${JSON.stringify(path)}`);
      // The same path split after any of its separators, as Glob tests the files below its root.
      const cuts = [...path.matchAll(/[\\/]/g)].map((m) => m.index + 1);
      const cut = cuts[random(cuts.length + 1)] ?? 0;
      if (sensitivePathsBelow(path.slice(0, cut))(path.slice(cut)) !== expected) {
        throw new Error(`sensitivePathsBelow disagrees with the rules on ${JSON.stringify([path.slice(0, cut), path.slice(cut)])}`);
      }
    }
    // The generator reaches both outcomes often.
    expect(sensitive).toBeGreaterThan(1_000);
    expect(20_000 - sensitive).toBeGreaterThan(1_000);
  });
});
