import { injectable } from 'inversify';
import { locateRipgrep, type RipgrepSearchReport, vscodeRipgrepBinary } from './ripgrepLocator';
import type { IRipgrepLocatorService } from './grepEngineSelection';

@injectable()
export class RipgrepLocatorService implements IRipgrepLocatorService {
  private readonly cache = new Map<string, Promise<RipgrepSearchReport>>();

  locate(configuredPath: string | undefined): Promise<RipgrepSearchReport> {
    const key = configuredPath ?? '';
    let report = this.cache.get(key);
    if (!report) {
      report = locateRipgrep({ configuredPath, envPath: process.env.PATH, packageBinary: vscodeRipgrepBinary });
      this.cache.set(key, report);
      // A miss is not cached for long: installing rg later should not need a restart.
      void report.then((r) => {
        if (!r.found) setTimeout(() => this.cache.delete(key), 30_000).unref();
      });
    }
    return report;
  }
}
