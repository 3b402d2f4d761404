import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import type { Command } from 'commander';
import { closestMatch } from '../base/strings';
import { readConfigFor } from '../services/config/configLoader';
import { KNOWN_MODEL_CAPABILITIES } from '../services/model/model';
import { AGENT_ID_PATTERN } from '../features/mcp/serve/http/mcpHttpServer';
import { SANDBOX_MODES, type SandboxMode } from '../services/runtime/sandboxConfig';
import { type CliIo, UsageError } from './io';

export interface WorkspaceFlags {
  readonly cwd?: string;
  readonly config?: string;
  readonly profile?: string;
  readonly modelCapability?: readonly string[];
  readonly sandbox?: string;
}

/** Adds --cwd, --config, --profile, --model-capability and --sandbox to a command. */
export function addWorkspaceOptions(command: Command): Command {
  return command
    .option('--cwd <dir>', 'working directory and workspace root (default: the current directory)')
    .option('--config <file>', 'config file (default: toolhost.json in the working directory, if present)')
    .option('--profile <name>', 'tool profile from the config "profiles" section')
    .option(
      '--model-capability <name>',
      'a capability the model declares, e.g. dynamically_loaded_tools (repeatable)',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--sandbox <mode>', `run Bash and background tasks in a sandbox: ${SANDBOX_MODES.join(' or ')} (default: config "sandbox", else none)`);
}

/** The help text of `--agent-id` (run, mcp serve). */
export const AGENT_ID_OPTION_HELP =
  'the agent\'s id (default agent-1): processes on one Redis (scale.redis.url) that use the same id share its state, tasks and cron jobs';

/** Checks `--agent-id` as the stateless server checks ids in its path (they name folders and Redis keys); a bad one is a usage error. */
export function parseAgentIdFlag(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!AGENT_ID_PATTERN.test(value)) {
    throw new UsageError(`--agent-id: ${JSON.stringify(value)} is not an agent id; use 1–64 letters, digits, "_" and "-", starting with a letter or a digit, e.g. "build-bot".`);
  }
  return value;
}

export interface ResolvedWorkspace {
  readonly cwd: string;
  /** The configuration as read (JSON); the App validates it. */
  readonly configInput: unknown;
  /** Names it in error messages: the file, or "defaults". */
  readonly configSource: string;
  readonly configFile?: string;
}

/** Validates --cwd and reads the configuration file; problems are usage errors (exit code 2). */
export function resolveWorkspace(flags: WorkspaceFlags, io: CliIo): ResolvedWorkspace {
  const cwd = nodePath.resolve(io.cwd, flags.cwd ?? '.');
  let stat: fs.Stats;
  try {
    stat = fs.statSync(cwd);
  } catch {
    throw new UsageError(`--cwd: directory "${flags.cwd ?? cwd}" does not exist.`);
  }
  if (!stat.isDirectory()) throw new UsageError(`--cwd: "${flags.cwd ?? cwd}" is not a directory.`);
  for (const capability of flags.modelCapability ?? []) {
    if (!KNOWN_MODEL_CAPABILITIES.includes(capability)) {
      const suggestion = closestMatch(capability, KNOWN_MODEL_CAPABILITIES);
      throw new UsageError(
        `--model-capability: unknown capability "${capability}"${suggestion ? ` (did you mean "${suggestion}"?)` : ''}; known: ${KNOWN_MODEL_CAPABILITIES.join(', ')}.`,
      );
    }
  }
  if (flags.sandbox !== undefined && !(SANDBOX_MODES as readonly string[]).includes(flags.sandbox)) {
    throw new UsageError(`--sandbox: unknown mode "${flags.sandbox}"; the modes are ${SANDBOX_MODES.join(', ')}.`);
  }
  const { input, file, source } = readConfigFor(cwd, flags.config === undefined ? undefined : nodePath.resolve(io.cwd, flags.config));
  const configInput = flags.sandbox === undefined ? input : withSandboxMode(input, flags.sandbox as SandboxMode);
  return { cwd, configInput, configSource: source, configFile: file };
}

/** The configuration with --sandbox's mode over config `sandbox` (its other keys, like `network`, stay). */
function withSandboxMode(input: unknown, mode: SandboxMode): unknown {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return input;
  const configured: unknown = (input as Record<string, unknown>).sandbox;
  const sandbox = configured !== null && typeof configured === 'object' && !Array.isArray(configured) ? { ...configured, mode } : mode;
  return { ...input, sandbox };
}
