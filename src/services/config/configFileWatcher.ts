import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { errorMessage, isErrnoException } from '../../base/errors';
import { type IDisposable, toDisposable } from '../../base/lifecycle';
import type { IConfigService } from './config';
import { CONFIG_FILE_NAME, ConfigError, readConfigFile } from './configLoader';

export interface ConfigFileWatchOptions {
  /** The working directory: its `toolhost.json` is watched unless `explicitFile` is given. */
  readonly cwd: string;
  /** A config file given explicitly (`--config`); absolute. */
  readonly explicitFile?: string;
  readonly config: IConfigService;
  /** Reloads, rejected edits and watch failures are reported here. */
  readonly log: (message: string) => void;
  /** Events within this time are one change (editors write a file in several steps). Default 100 ms. */
  readonly debounceMs?: number;
}

function readText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    if (isErrnoException(error) && (error.code === 'ENOENT' || error.code === 'ENOTDIR')) return undefined;
    throw error;
  }
}

/**
 * Follows edits of the config file while a long-running host (`toolhost mcp serve`) runs: a valid
 * new version replaces the configuration (the agent recomputes its tools, rules and limits from
 * it); an invalid one is reported and the last good configuration stays. Without `--config`, a
 * removed `toolhost.json` means the defaults, as at startup; a removed explicit file is reported
 * and the configuration kept. The directory is watched, so editors that save by renaming a new
 * file into place are seen too. The watcher does not keep the process alive.
 */
export function watchConfigFile(options: ConfigFileWatchOptions): IDisposable {
  const file = options.explicitFile ?? nodePath.join(options.cwd, CONFIG_FILE_NAME);
  const dir = nodePath.dirname(file);
  const base = nodePath.basename(file);
  const debounceMs = options.debounceMs ?? 100;
  let last: string | undefined;
  try {
    last = readText(file);
  } catch {
    last = undefined;
  }
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const reload = () => {
    timer = undefined;
    if (closed) return;
    let text: string | undefined;
    try {
      text = readText(file);
    } catch (error) {
      options.log(`cannot read ${file}: ${errorMessage(error)}; keeping the current configuration`);
      return;
    }
    if (text === last) return;
    last = text;
    if (text === undefined) {
      if (options.explicitFile) {
        options.log(`${file} was removed; keeping the current configuration`);
        return;
      }
      try {
        options.config.replace({});
        options.log(`${file} was removed; using the default configuration`);
      } catch (error) {
        options.log(`${file} was removed, but the defaults could not be applied: ${errorMessage(error)}`);
      }
      return;
    }
    try {
      options.config.replace(readConfigFile(file), file);
      options.log(`reloaded ${file}`);
    } catch (error) {
      const message = error instanceof ConfigError ? error.message : errorMessage(error);
      options.log(`${message}\nThe change was ignored; the last valid configuration stays in effect.`);
    }
  };

  let watcher: fs.FSWatcher;
  try {
    watcher = fs.watch(dir, { persistent: false }, (_event, filename) => {
      if (filename !== null && filename !== base) return;
      if (timer) clearTimeout(timer);
      timer = setTimeout(reload, debounceMs);
    });
  } catch (error) {
    options.log(`cannot watch ${file} for changes: ${errorMessage(error)}`);
    return toDisposable(() => undefined);
  }
  watcher.on('error', (error) => {
    options.log(`watching ${file} stopped: ${errorMessage(error)}`);
    watcher.close();
  });
  return toDisposable(() => {
    closed = true;
    if (timer) clearTimeout(timer);
    watcher.close();
  });
}
