import { errorMessage } from '../../base/errors';

/** The sharp module's type; sharp is an optional dependency, loaded on first use. */
export type SharpModule = typeof import('sharp');

export type SharpLoad = { readonly ok: true; readonly sharp: SharpModule } | { readonly ok: false; readonly reason: string };

/**
 * Loads sharp, or says why it cannot: not installed, or its native binary does not load on this
 * platform (a lockfile made elsewhere can miss the platform package). `load` is the require
 * (tests give one that fails); it is called only here, so an App that never decodes an image
 * never loads libvips.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export function loadSharp(load: () => unknown = () => require('sharp')): SharpLoad {
  let loaded: unknown;
  try {
    loaded = load();
  } catch (error) {
    const message = errorMessage(error);
    if ((error as { code?: unknown }).code === 'MODULE_NOT_FOUND' && message.includes("'sharp'")) return { ok: false, reason: 'it is not installed; install it with npm install sharp' };
    return { ok: false, reason: firstLine(message) };
  }
  if (typeof loaded !== 'function' || typeof (loaded as { format?: unknown }).format !== 'object') {
    return { ok: false, reason: 'the module that loaded is not sharp' };
  }
  return { ok: true, sharp: loaded as SharpModule };
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0]!.trim();
  return line.length > 300 ? line.slice(0, 299) + '…' : line;
}
