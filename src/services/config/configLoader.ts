import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { z } from 'zod';
import { isErrnoException } from '../../base/errors';
import { closestMatch } from '../../base/strings';
import { type ToolhostConfig, ToolhostConfigSchema } from './configSchema';

export const CONFIG_FILE_NAME = 'toolhost.json';

export interface ConfigIssue {
  /** Dotted key path, e.g. `read.maxChars` or `profiles.review.tools[0]`; '' for the root. */
  readonly path: string;
  readonly message: string;
}

/** Bad configuration. The message lists every problem with its key path. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    readonly source: string,
    readonly issues: readonly ConfigIssue[],
  ) {
    super(`Invalid configuration in ${source}:\n` + issues.map((i) => `  - ${i.path || '(root)'}: ${i.message}`).join('\n'));
  }
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else {
      const text = String(key);
      out += /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(text) ? (out ? '.' : '') + text : `[${JSON.stringify(text)}]`;
    }
  }
  return out;
}

/** The keys an object schema accepts at a path, for "did you mean" hints. */
function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let current: z.ZodType | undefined = schema;
  for (const key of path) {
    current = unwrap(current);
    if (current instanceof z.ZodObject) current = (current.shape as Record<string, z.ZodType>)[String(key)];
    else if (current instanceof z.ZodRecord) current = current.valueType as z.ZodType;
    else if (current instanceof z.ZodArray) current = current.element as z.ZodType;
    else return [];
  }
  current = unwrap(current);
  return current instanceof z.ZodObject ? Object.keys(current.shape) : [];
}

function unwrap(schema: z.ZodType | undefined): z.ZodType | undefined {
  let current = schema;
  for (let i = 0; i < 10 && current; i++) {
    if (current instanceof z.ZodOptional || current instanceof z.ZodDefault || current instanceof z.ZodPrefault || current instanceof z.ZodNullable) {
      current = current.unwrap() as z.ZodType;
    } else break;
  }
  return current;
}

export function configIssuesFromZod(error: z.ZodError, schema: z.ZodType = ToolhostConfigSchema): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      const known = knownKeysAt(schema, issue.path);
      for (const key of issue.keys) {
        const suggestion = closestMatch(key, known);
        issues.push({
          path: formatPath([...issue.path, key]),
          message: `unknown key${suggestion ? ` (did you mean "${suggestion}"?)` : known.length ? ` (known keys: ${known.join(', ')})` : ''}`,
        });
      }
      continue;
    }
    issues.push({ path: formatPath(issue.path), message: issue.message.replace(/^Invalid input: /, '') });
  }
  return issues;
}

/** Validates raw configuration (already parsed JSON) and fills in defaults. */
export function parseConfig(input: unknown, source = 'configuration'): ToolhostConfig {
  const result = ToolhostConfigSchema.safeParse(input ?? {});
  if (!result.success) throw new ConfigError(source, configIssuesFromZod(result.error));
  return result.data;
}

/** Reads and validates a config file. A missing file given explicitly is an error. */
export function loadConfigFile(file: string): ToolhostConfig {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    const reason = isErrnoException(error) && error.code === 'ENOENT' ? 'file not found' : (error as Error).message;
    throw new ConfigError(file, [{ path: '', message: reason }]);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(file, [{ path: '', message: `not valid JSON: ${(error as Error).message}` }]);
  }
  return parseConfig(json, file);
}

/**
 * The configuration for a working directory: `explicitFile` if given, else `toolhost.json` in
 * `cwd` if present, else the defaults.
 */
export function loadConfigFor(cwd: string, explicitFile?: string): { config: ToolhostConfig; file?: string } {
  if (explicitFile) {
    const file = nodePath.resolve(cwd, explicitFile);
    return { config: loadConfigFile(file), file };
  }
  const file = nodePath.join(cwd, CONFIG_FILE_NAME);
  if (fs.existsSync(file)) return { config: loadConfigFile(file), file };
  return { config: parseConfig({}, 'defaults') };
}
