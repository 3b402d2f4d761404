import { constants as fsConstants } from 'node:fs';
import * as fsp from 'node:fs/promises';
import { createRequire } from 'node:module';
import * as nodePath from 'node:path';

export type RipgrepSource = 'grep.rgPath' | '@vscode/ripgrep' | 'PATH';

export interface RipgrepLocation {
  readonly path: string;
  readonly source: RipgrepSource;
}

export interface RipgrepLookup {
  /** Config `grep.rgPath`: used first when set, so an explicit choice is never overridden. */
  readonly configuredPath?: string;
  /** The `PATH` to search for `rg`. */
  readonly envPath?: string;
  /**
   * The binary of the npm package @vscode/ripgrep (>= 1.18 ships it in a per-platform optional
   * dependency; requiring the package throws when that dependency is missing).
   */
  readonly packageBinary?: () => string | undefined;
}

export interface RipgrepSearchReport {
  readonly found?: RipgrepLocation;
  /** What was tried, for the error message when nothing was found. */
  readonly tried: readonly string[];
}

async function isExecutable(path: string): Promise<boolean> {
  try {
    const stat = await fsp.stat(path);
    if (!stat.isFile()) return false;
    await fsp.access(path, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The binary of @vscode/ripgrep, resolved lazily; undefined when the package or its platform
 * binary is missing. This is the path the package exports as `rgPath`, found the way the package
 * finds it (its per-platform optional dependency, resolved from the package itself) without
 * loading the package: since 1.18 it is an ES module, which CommonJS loaders such as ts-jest
 * cannot require.
 */
export function vscodeRipgrepBinary(): string | undefined {
  let entry: string;
  try {
    entry = require.resolve('@vscode/ripgrep');
  } catch {
    return undefined;
  }
  const arch = process.env.npm_config_arch || process.arch;
  const binary = process.platform === 'win32' ? 'rg.exe' : 'rg';
  try {
    return createRequire(entry).resolve(`@vscode/ripgrep-${process.platform}-${arch}/bin/${binary}`);
  } catch {
    return undefined;
  }
}

/** Finds an rg binary: config grep.rgPath, then @vscode/ripgrep, then `rg` on PATH. */
export async function locateRipgrep(lookup: RipgrepLookup): Promise<RipgrepSearchReport> {
  const tried: string[] = [];
  if (lookup.configuredPath) {
    if (await isExecutable(lookup.configuredPath)) return { found: { path: lookup.configuredPath, source: 'grep.rgPath' }, tried };
    tried.push(`grep.rgPath (${lookup.configuredPath}) is not an executable file`);
  }
  const packaged = lookup.packageBinary?.();
  if (packaged && (await isExecutable(packaged))) return { found: { path: packaged, source: '@vscode/ripgrep' }, tried };
  tried.push(packaged ? `@vscode/ripgrep's binary (${packaged}) is not executable` : '@vscode/ripgrep is not installed for this platform');
  const exe = process.platform === 'win32' ? 'rg.exe' : 'rg';
  for (const dir of (lookup.envPath ?? '').split(nodePath.delimiter)) {
    if (dir === '') continue;
    const candidate = nodePath.join(dir, exe);
    if (await isExecutable(candidate)) return { found: { path: candidate, source: 'PATH' }, tried };
  }
  tried.push('rg is not on PATH');
  return { tried };
}
