/**
 * Files that hold secrets. Tools refuse to read, write or list them; the list is documented in
 * docs/configuration.md. Matching is case-insensitive, on the basename or on path segments.
 */

/** Basenames that are secrets wherever they are. */
const SENSITIVE_BASENAMES = new Set([
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
const ENV_TEMPLATES = new Set(['.env.example', '.env.sample', '.env.template']);

/** SSH private keys: the name itself, `-`/`_` variants, or backup suffixes; `.pub` is public. */
const SSH_KEY_PREFIXES = ['id_rsa', 'id_dsa', 'id_ecdsa', 'id_ed25519', 'id_ecdsa_sk', 'id_ed25519_sk'];
const BACKUP_SUFFIXES = new Set(['.bak', '.backup', '.copy', '.disabled', '.key', '.old', '.orig', '.pem', '.save', '.tmp']);

/** Private-key and keystore extensions. */
const SENSITIVE_EXTENSIONS = ['.pem', '.key', '.p12', '.pfx', '.jks', '.keystore', '.ppk'];

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

/**
 * Every sensitive path contains one of these; most paths contain none, and one regex test lets
 * them through without splitting the path (Glob and Grep ask for every file they see).
 */
const MAYBE_SENSITIVE =
  /\.env|id_[rde]|credential|netrc|pgpass|npmrc|pypirc|htpasswd|vault-token|\.boto|s3cfg|secring|\.(?:pem|key|p12|pfx|jks|keystore|ppk)$|(?:^|[\\/])\.(?:ssh|gnupg|aws|gcp|azure|kube|docker|password-store)(?:[\\/]|$)|gcloud|(?:^|[\\/])gh[\\/]/i;

/** Whether a path names a file that holds secrets. */
export function isSensitivePath(path: string): boolean {
  if (!MAYBE_SENSITIVE.test(path)) return false;
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
