import * as fsp from 'node:fs/promises';
import * as os from 'node:os';
import * as nodePath from 'node:path';
import { inject, injectable, preDestroy } from 'inversify';
import { IConfigService } from '../../../services/config/config';
import { BuiltinGrepEngine, GrepWorkerPool } from './builtinEngine';
import { type GrepEngine, GrepEngineError, type GrepEngineName } from './grepEngine';
import { RipgrepEngine } from './ripgrepEngine';
import { SENSITIVE_IGNORE_RULES } from '../search/sensitiveIgnore';
import { type GrepEngineChoice, type IGrepEngineService, IRipgrepLocatorService } from './grepEngineSelection';
import { grepConfig } from '../osConfig';

@injectable()
export class GrepEngineService implements IGrepEngineService {
  private readonly pool: GrepWorkerPool;
  private readonly ripgrep = new Map<string, RipgrepEngine>();
  private ignoreDir: Promise<string> | undefined;
  private readonly counts: Record<GrepEngineName, number> = { ripgrep: 0, builtin: 0 };

  constructor(
    @inject(IRipgrepLocatorService) private readonly locator: IRipgrepLocatorService,
    @inject(IConfigService) private readonly config: IConfigService,
  ) {
    this.pool = new GrepWorkerPool(() => this.config.section(grepConfig).workers);
  }

  get selections(): Readonly<Record<GrepEngineName, number>> {
    return { ...this.counts };
  }

  get builtinWorkers(): { readonly live: number; readonly waiting: number } {
    return { live: this.pool.size, waiting: this.pool.waiting };
  }

  async select(choice: GrepEngineChoice): Promise<GrepEngine> {
    const engine = await this.choose(choice);
    this.counts[engine.name]++;
    return engine;
  }

  private async choose(choice: GrepEngineChoice): Promise<GrepEngine> {
    const builtin = () => new BuiltinGrepEngine(this.pool, this.config.section(grepConfig).workers);
    if (choice.setting === 'builtin') return builtin();
    if (!choice.canSpawn) {
      if (choice.setting === 'auto') return builtin();
      throw new GrepEngineError('Grep is configured to use ripgrep (grep.engine = "ripgrep"), but this runtime cannot start processes. Set grep.engine to "auto" or "builtin".');
    }
    const report = await this.locator.locate(choice.rgPath);
    if (!report.found) {
      if (choice.setting === 'auto') return builtin();
      throw new GrepEngineError(
        `Grep is configured to use ripgrep (grep.engine = "ripgrep"), but no rg binary was found: ${report.tried.join('; ')}. ` +
          `Install ripgrep (e.g. npm install @vscode/ripgrep, or the ripgrep package of your system), set grep.rgPath, or set grep.engine to "auto" or "builtin".`,
      );
    }
    let engine = this.ripgrep.get(report.found.path);
    if (!engine) {
      engine = new RipgrepEngine(report.found.path, () => this.ignoreFile());
      this.ripgrep.set(report.found.path, engine);
    }
    return engine;
  }

  /** The secrets ignore file rg reads, written once per App into a private temporary folder. */
  private async ignoreFile(): Promise<string> {
    this.ignoreDir ??= (async () => {
      const dir = await fsp.mkdtemp(nodePath.join(os.tmpdir(), 'toolhost-grep-'));
      await fsp.writeFile(nodePath.join(dir, 'sensitive.ignore'), SENSITIVE_IGNORE_RULES);
      return dir;
    })();
    return nodePath.join(await this.ignoreDir, 'sensitive.ignore');
  }

  @preDestroy()
  async dispose(): Promise<void> {
    await this.pool.dispose();
    if (this.ignoreDir) {
      const dir = await this.ignoreDir.catch(() => undefined);
      if (dir) await fsp.rm(dir, { recursive: true, force: true });
    }
  }
}
