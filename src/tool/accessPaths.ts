/**
 * How accesses compare paths and state keys (accesses.ts), and the same relations as segment
 * lists, for the scheduler's index by resource: it must agree with `conflict()` exactly.
 */

// Linux filesystems are case-sensitive; the default macOS and Windows ones are not.
const CASE_INSENSITIVE_FS = process.platform === 'darwin' || process.platform === 'win32';

export function comparablePath(path: string): string {
  let p = path.replace(/\\/g, '/');
  if (p.length > 1 && p.endsWith('/')) p = p.replace(/\/+$/, '') || '/';
  return CASE_INSENSITIVE_FS ? p.toLowerCase() : p;
}

/** Whether a recursive access of `outer` covers `inner` (both comparable paths). */
export function covers(outer: string, inner: string): boolean {
  return outer === '/' ? inner.startsWith('/') : inner.startsWith(outer + '/');
}

export function keysOverlap(a: string, b: string): boolean {
  return a === b || a.startsWith(b + '/') || b.startsWith(a + '/');
}

/**
 * A file path as segments: two paths are equal exactly when their segments are, and
 * `covers(outer, inner)` holds exactly when outer's segments are a proper prefix of inner's.
 * '' and '/' cover every absolute path, so absolute paths start with both: '/a' is ['', '/', 'a'].
 */
export function filePathSegments(path: string): string[] {
  const p = comparablePath(path);
  if (p === '') return [''];
  if (p === '/') return ['', '/'];
  return p.startsWith('/') ? ['', '/', ...p.slice(1).split('/')] : p.split('/');
}

/** A state key as segments: two keys overlap exactly when the segments of one are a prefix of the other's. */
export function stateKeySegments(key: string): string[] {
  return key.split('/');
}
