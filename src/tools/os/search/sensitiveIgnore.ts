import { BACKUP_SUFFIXES, ENV_TEMPLATES, SENSITIVE_BASENAMES, SENSITIVE_EXTENSIONS, SSH_KEY_PREFIXES } from '../../../tool/sensitivePaths';

/**
 * The files that hold secrets (src/tool/sensitivePaths.ts), as gitignore rules that ripgrep reads
 * with `--ignore-file`, so it never opens them. The rules are a subset of isSensitivePath: they
 * only ever leave out files that isSensitivePath calls sensitive, never a folder, and never any
 * other file. The name and extension rules are built from the same lists; the directory rules
 * are written out (gitignore cannot express their exceptions as functions). Both engines filter every result with isSensitivePath as well (that covers what
 * gitignore cannot say, such as upper-case names), so their results agree.
 */
const DIRECTORY_RULES = [
  // .ssh: everything but public keys, known_hosts, authorized_keys and config.
  '**/.ssh/**',
  ...['*.pub', 'known_hosts', 'known_hosts.old', 'authorized_keys', 'config'].flatMap((e) => [`!**/.ssh/${e}`, `!**/.ssh/${e}/**`]),
  '**/.gnupg/**',
  ...['*.conf', 'pubring.kbx', 'pubring.gpg', 'trustdb.gpg'].flatMap((e) => [`!**/.gnupg/${e}`, `!**/.gnupg/${e}/**`]),
  '**/.aws/**',
  '!**/.aws/config',
  '!**/.aws/config/**',
  '**/.gcp/**',
  '**/.config/gcloud/**',
  '!**/.config/gcloud/*.json',
  '**/.config/gcloud/*credential*',
  '**/.azure/**',
  ...['config', 'clouds.config'].flatMap((e) => [`!**/.azure/${e}`, `!**/.azure/${e}/**`]),
  '**/.kube/**',
  '!**/.kube/cache',
  '!**/.kube/cache/**',
  '**/.docker/config.json',
  '**/.docker/config.json/**',
  '**/.password-store/**',
  '**/.config/gh/hosts.yml',
  '**/.config/gh/hosts.yml/**',
];

const EXTENSION_RULES = SENSITIVE_EXTENSIONS.map((ext) => `?*${ext}`);

const NAME_RULES = [
  '.env',
  '.env.*',
  ...[...ENV_TEMPLATES].map((template) => `!${template}`),
  ...SENSITIVE_BASENAMES,
  ...SSH_KEY_PREFIXES.flatMap((key) => [key, `${key}-*`, `${key}_*`, ...[...BACKUP_SUFFIXES].map((s) => `${key}${s}`)]),
  '!id_*.pub',
];

/** The ignore file's text. The last line keeps every folder: these rules only ever leave out files. */
export const SENSITIVE_IGNORE_RULES: string = [
  '# toolhost: files that hold secrets are never searched (see src/tool/sensitivePaths.ts)',
  ...DIRECTORY_RULES,
  ...EXTENSION_RULES,
  ...NAME_RULES,
  '!*/',
  '',
].join('\n');
