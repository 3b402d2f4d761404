import { createServiceId } from '../../../di/serviceId';
import type { GrepEngineSetting } from '../osConfig';
import type { GrepEngine, GrepEngineName } from './grepEngine';
import type { RipgrepSearchReport } from './ripgrepLocator';

/** Finds the rg binary (App scope): config grep.rgPath, @vscode/ripgrep, `rg` on PATH. Cached. */
export interface IRipgrepLocatorService {
  locate(configuredPath: string | undefined): Promise<RipgrepSearchReport>;
}
export const IRipgrepLocatorService = createServiceId<IRipgrepLocatorService>('RipgrepLocatorService');

export interface GrepEngineChoice {
  readonly setting: GrepEngineSetting;
  readonly rgPath: string | undefined;
  /** The runtime can start processes (ripgrep needs to). */
  readonly canSpawn: boolean;
}

/**
 * The Grep engines (App scope): ripgrep when a binary is found (and allowed), else the builtin
 * engine, whose worker threads (at most grep.workers for the App) it keeps between calls and
 * ends on dispose.
 */
export interface IGrepEngineService {
  /** Throws GrepEngineError when the configured engine cannot run (e.g. `ripgrep` without a binary). */
  select(choice: GrepEngineChoice): Promise<GrepEngine>;
  /** How many times each engine was selected (diagnostics and tests). */
  readonly selections: Readonly<Record<GrepEngineName, number>>;
  /**
   * The builtin engine's worker threads: started and not yet exited (never more than
   * grep.workers), and searches waiting for one (diagnostics and tests).
   */
  readonly builtinWorkers: { readonly live: number; readonly waiting: number };
}
export const IGrepEngineService = createServiceId<IGrepEngineService>('GrepEngineService');
