import type { Stats } from 'node:fs';
import { errorMessage, isErrnoException } from '../errors';
import { formatCount } from '../strings';
import type { RuntimeFs } from './runtimeFs';

/** Characters of content a display (approval prompt, UI) carries at most, per field. */
export const DISPLAY_PREVIEW_CHARS = 8_000;

/** The text cut to `max` characters, with a visible note of what was left out. */
export function preview(text: string, max = DISPLAY_PREVIEW_CHARS): string {
  if (text.length <= max) return text;
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}\n[… ${formatCount(text.length - end)} more characters not shown]`;
}

/** The stat of `path`, or undefined when nothing is there. Other errors are thrown. */
export async function statIfExists(fs: RuntimeFs, path: string): Promise<Stats | undefined> {
  try {
    return await fs.stat(path);
  } catch (error) {
    if (isErrnoException(error) && error.code === 'ENOENT') return undefined;
    throw error;
  }
}

/** A file-system error as a sentence for the model. `action` is e.g. `write "a.txt"`. */
export function fsErrorMessage(action: string, error: unknown): string {
  const code = isErrnoException(error) ? error.code : undefined;
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return `Cannot ${action}: permission denied.`;
    case 'ENOSPC':
      return `Cannot ${action}: no space left on the device.`;
    case 'EDQUOT':
      return `Cannot ${action}: the disk quota is exceeded.`;
    case 'EFBIG':
      return `Cannot ${action}: the file would exceed the maximum file size allowed.`;
    case 'EROFS':
      return `Cannot ${action}: the file system is read-only.`;
    case 'ENAMETOOLONG':
      return `Cannot ${action}: the file name is too long.`;
    case 'EISDIR':
      return `Cannot ${action}: it is a directory.`;
    default:
      return `Cannot ${action}: ${errorMessage(error)}`;
  }
}

/**
 * The message for a write refused because another program changed the file meanwhile (see
 * writeFileAtomic's `expectedTarget`): its change is kept, nothing of this write is.
 */
export function concurrentChangeMessage(shown: string, error: { readonly how: 'changed' | 'replaced' | 'created' | 'removed' }, tool: string): string {
  const what = error.how === 'created' ? 'created' : error.how === 'removed' ? 'removed' : 'changed';
  const then = error.how === 'removed' ? 'Check whether it should still exist, then call again.' : `Read it${error.how === 'created' ? '' : ' again'}, then call again.`;
  return `"${shown}" was ${what} by another program while this ${tool} was in progress; it was left as that program left it, and nothing was written. ${then}`;
}
