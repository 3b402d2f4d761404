/**
 * Files that hold secrets. Tools refuse to read, write or list them; the list is documented in
 * docs/configuration.md. Matching is case-insensitive, on the basename or on path segments.
 */

/** Basenames that are secrets wherever they are. */
export const SENSITIVE_BASENAMES: ReadonlySet<string> = new Set([
  '.env',
  '.netrc',
  '_netrc',
  '.pgpass',
  '.npmrc',
  '.pypirc',
  '.git-credentials',
  '.htpasswd',
  '.vault-token',
  '.boto',
  '.s3cfg',
  'credentials',
  'secring.gpg',
]);

/** `.env.<anything>` is a secret except these templates. */
export const ENV_TEMPLATES: ReadonlySet<string> = new Set(['.env.example', '.env.sample', '.env.template']);

/** SSH private keys: the name itself, `-`/`_` variants, or backup suffixes; `.pub` is public. */
export const SSH_KEY_PREFIXES: readonly string[] = ['id_rsa', 'id_dsa', 'id_ecdsa', 'id_ed25519', 'id_ecdsa_sk', 'id_ed25519_sk'];
export const BACKUP_SUFFIXES: ReadonlySet<string> = new Set(['.bak', '.backup', '.copy', '.disabled', '.key', '.old', '.orig', '.pem', '.save', '.tmp']);

/** Private-key and keystore extensions. */
export const SENSITIVE_EXTENSIONS: readonly string[] = ['.pem', '.key', '.p12', '.pfx', '.jks', '.keystore', '.ppk'];

/** Directories whose contents are secrets (matched as path segments), with their public exceptions. */
const SENSITIVE_DIRECTORIES: ReadonlyArray<{ segments: string[]; except?: (basename: string) => boolean }> = [
  {
    segments: ['.ssh'],
    except: (b) => b.endsWith('.pub') || b === 'known_hosts' || b === 'known_hosts.old' || b === 'authorized_keys' || b === 'config',
  },
  { segments: ['.gnupg'], except: (b) => b.endsWith('.conf') || b === 'pubring.kbx' || b === 'pubring.gpg' || b === 'trustdb.gpg' },
  { segments: ['.aws'], except: (b) => b === 'config' },
  { segments: ['.gcp'] },
  { segments: ['.config', 'gcloud'], except: (b) => b.endsWith('.json') && !b.includes('credential') && b !== 'access_tokens.db' },
  { segments: ['.azure'], except: (b) => b === 'config' || b === 'clouds.config' },
  { segments: ['.kube'], except: (b) => b === 'cache' },
  { segments: ['.docker'], except: (b) => b !== 'config.json' },
  { segments: ['.password-store'] },
  { segments: ['.config', 'gh'], except: (b) => b !== 'hosts.yml' },
];

function isSshKeyName(base: string): boolean {
  for (const prefix of SSH_KEY_PREFIXES) {
    if (!base.startsWith(prefix)) continue;
    const rest = base.slice(prefix.length);
    if (rest === '') return true;
    if (rest.endsWith('.pub')) return false;
    if (rest.startsWith('-') || rest.startsWith('_')) {
      // id_ecdsa_sk is its own prefix; `id_ecdsa_sk.pub` is handled above.
      return true;
    }
    if (BACKUP_SUFFIXES.has(rest)) return true;
  }
  return false;
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Every sensitive path contains one of these names, ends in one of these extensions, or has one
 * of these directories as a segment. Most paths match none, and one regex test (built from the
 * lists above, so it cannot drift from them) lets them through without splitting the path: Glob
 * and Grep ask for every file they see. (Cheaper-looking gates, a test of the base name and of
 * the folder part, measured slower: the first look at a concatenated path flattens it, which is
 * most of the cost of this one test.)
 */
const MAYBE_SENSITIVE = new RegExp(
  [
    ...['.env', ...SENSITIVE_BASENAMES, ...SSH_KEY_PREFIXES].map(escapeRegExp),
    `(?:${SENSITIVE_EXTENSIONS.map(escapeRegExp).join('|')})$`,
    `(?:^|[\\\\/])(?:${SENSITIVE_DIRECTORIES.map((d) => escapeRegExp(d.segments[d.segments.length - 1]!)).join('|')})(?:[\\\\/]|$)`,
  ].join('|'),
  'i',
);

/** Whether a path names a file that holds secrets. */
export function isSensitivePath(path: string): boolean {
  return MAYBE_SENSITIVE.test(path) && matchesSensitiveRules(path);
}

/**
 * isSensitivePath for many paths below one folder, each given relative to it (`dir` ends with a
 * separator): the folder is gated once, and then each path only by its own part, which a match
 * cannot cross into, since no gated name holds a separator (Glob asks for every match).
 */
export function sensitivePathsBelow(dir: string): (rel: string) => boolean {
  if (!/[\\/]$/.test(dir) || MAYBE_SENSITIVE.test(dir)) return (rel) => isSensitivePath(dir + rel);
  return (rel) => MAYBE_SENSITIVE.test(rel) && matchesSensitiveRules(dir + rel);
}

/** isSensitivePath without the gate: the rules themselves (exported for the test that the gate lets every sensitive path through). */
export function matchesSensitiveRules(path: string): boolean {
  const normalized = path.replace(/\\/g, '/').toLowerCase();
  const segments = normalized.split('/').filter((s) => s.length > 0);
  const base = segments[segments.length - 1] ?? '';
  if (base === '') return false;
  if (SENSITIVE_BASENAMES.has(base)) return true;
  if (base.startsWith('.env.') && !ENV_TEMPLATES.has(base)) return true;
  if (isSshKeyName(base)) return true;
  if (SENSITIVE_EXTENSIONS.some((ext) => base.endsWith(ext) && base.length > ext.length)) return true;
  const parents = segments.slice(0, -1);
  for (const dir of SENSITIVE_DIRECTORIES) {
    if (!containsRun(parents, dir.segments)) continue;
    // The first path segment below the sensitive directory decides the exception.
    const below = segments[indexAfterRun(parents, dir.segments)] ?? base;
    if (!dir.except || !dir.except(below)) return true;
  }
  return false;
}

function indexAfterRun(haystack: readonly string[], run: readonly string[]): number {
  for (let i = 0; i + run.length <= haystack.length; i++) {
    if (run.every((s, j) => haystack[i + j] === s)) return i + run.length;
  }
  return -1;
}

function containsRun(haystack: readonly string[], run: readonly string[]): boolean {
  return indexAfterRun(haystack, run) >= 0;
}
