import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import type { Command } from 'commander';
import { loadConfigFor } from '../services/config/configLoader';
import type { ToolhostConfig } from '../services/config/configSchema';
import { type CliIo, UsageError } from './io';

export interface WorkspaceFlags {
  readonly cwd?: string;
  readonly config?: string;
  readonly profile?: string;
  readonly modelCapability?: readonly string[];
}

/** Adds --cwd, --config and --profile to a command. */
export function addWorkspaceOptions(command: Command): Command {
  return command
    .option('--cwd <dir>', 'working directory and workspace root (default: the current directory)')
    .option('--config <file>', 'config file (default: toolhost.json in the working directory, if present)')
    .option('--profile <name>', 'tool profile from the config "profiles" section')
    .option(
      '--model-capability <name>',
      'a capability the model declares, e.g. dynamically_loaded_tools (repeatable)',
      (value: string, previous: string[] = []) => [...previous, value],
    );
}

export interface ResolvedWorkspace {
  readonly cwd: string;
  readonly config: ToolhostConfig;
  readonly configFile?: string;
}

/** Validates --cwd and loads the configuration; problems are usage errors (exit code 2). */
export function resolveWorkspace(flags: WorkspaceFlags, io: CliIo): ResolvedWorkspace {
  const cwd = nodePath.resolve(io.cwd, flags.cwd ?? '.');
  let stat: fs.Stats;
  try {
    stat = fs.statSync(cwd);
  } catch {
    throw new UsageError(`--cwd: directory "${flags.cwd ?? cwd}" does not exist.`);
  }
  if (!stat.isDirectory()) throw new UsageError(`--cwd: "${flags.cwd ?? cwd}" is not a directory.`);
  const { config, file } = loadConfigFor(cwd, flags.config === undefined ? undefined : nodePath.resolve(io.cwd, flags.config));
  return { cwd, config, configFile: file };
}
