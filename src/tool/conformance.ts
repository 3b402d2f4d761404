import fs = require('node:fs');
import { Ajv } from 'ajv';
import { errorMessage } from '../base/errors';
import { nodeBuiltins } from '../base/nodeBuiltins';
import { type ExecutableTool, outputText } from './contract';
import { ToolInputDisplaySchema } from './display';
import { TOOL_NAME_PATTERN } from '../di/toolContribution';

const FORBIDDEN_IO = {
  fs: ['openSync', 'readFileSync', 'writeFileSync', 'appendFileSync', 'mkdirSync', 'readdirSync', 'rmSync', 'unlinkSync', 'renameSync', 'copyFileSync'],
  'fs.promises': ['open', 'readFile', 'writeFile', 'appendFile', 'mkdir', 'readdir', 'rm', 'unlink', 'rename', 'copyFile'],
  child_process: ['spawn', 'exec', 'execFile', 'fork', 'spawnSync', 'execSync', 'execFileSync'],
} as const;

type Patchable = Record<string, unknown>;

function modules(): Record<keyof typeof FORBIDDEN_IO, Patchable> {
  return { fs: fs as unknown as Patchable, 'fs.promises': fs.promises as unknown as Patchable, child_process: nodeBuiltins.childProcess() as unknown as Patchable };
}

/**
 * Runs `body` while every file-opening, writing and process-starting function of `fs`,
 * `fs.promises` and `child_process` records its calls (and still works); returns their names.
 * The functions are restored afterwards, whatever happens.
 */
async function recordIo(body: () => Promise<void>): Promise<string[]> {
  const calls: string[] = [];
  const restore: Array<() => void> = [];
  for (const [label, module] of Object.entries(modules())) {
    for (const name of FORBIDDEN_IO[label as keyof typeof FORBIDDEN_IO]) {
      const original = module[name];
      if (typeof original !== 'function') continue;
      module[name] = function (this: unknown, ...args: unknown[]) {
        calls.push(`${label}.${name}`);
        return (original as (...a: unknown[]) => unknown).apply(this, args);
      };
      restore.push(() => (module[name] = original));
    }
  }
  try {
    await body();
  } finally {
    for (const undo of restore) undo();
  }
  return [...new Set(calls)];
}

export interface ToolConformanceOptions {
  /** The description must be at least this long (default 1 character). */
  readonly minDescriptionChars?: number;
}

/**
 * Checks a tool against the contract on sample inputs and returns the problems found (none: it
 * conforms): a valid name; a description that renders (no `${…}` left); a closed object schema
 * that compiles, accepts every sample and refuses an unknown parameter; and `resolveExecution`
 * accepting each sample with a string approval rule and a valid display, **without opening a
 * file, writing or starting a process**. Run it alone (not beside other I/O of the same process):
 * it watches `fs` and `child_process` while the tool resolves.
 */
export async function checkToolConformance(tool: ExecutableTool<never>, samples: readonly unknown[], options: ToolConformanceOptions = {}): Promise<string[]> {
  const problems: string[] = [];
  const name = String(tool.name);
  if (!TOOL_NAME_PATTERN.test(name)) problems.push(`name "${name}" must match ${TOOL_NAME_PATTERN.source}`);
  let description = '';
  try {
    description = tool.description;
  } catch (error) {
    problems.push(`the description does not render: ${errorMessage(error)}`);
  }
  if (description.length < (options.minDescriptionChars ?? 1)) problems.push(`the description has ${description.length} characters; it needs ${options.minDescriptionChars ?? 1} at least`);
  if (/\$\{[A-Za-z_]/.test(description)) problems.push('the description has an unfilled ${…} placeholder');
  const schema = tool.parameters as Record<string, unknown>;
  if (schema['type'] !== 'object' || schema['additionalProperties'] !== false) problems.push('parameters must be an object schema with additionalProperties: false');
  if (samples.length === 0) problems.push('no sample inputs to check');
  try {
    const validate = new Ajv({ allErrors: true, allowUnionTypes: true, validateFormats: false }).compile(schema);
    samples.forEach((sample, index) => {
      if (!validate(sample)) problems.push(`sample ${index + 1} does not match the schema: ${JSON.stringify(validate.errors)}`);
    });
    const first = samples[0];
    if (typeof first === 'object' && first !== null && validate({ ...first, not_a_parameter: 1 })) problems.push('the schema accepts an unknown parameter');
  } catch (error) {
    problems.push(`the schema does not compile: ${errorMessage(error)}`);
  }
  for (const [index, sample] of samples.entries()) {
    const io = await recordIo(async () => {
      try {
        const execution = await tool.resolveExecution(sample as never);
        if (execution.isError) {
          problems.push(`resolveExecution refused sample ${index + 1}: ${outputText(execution.output)}`);
          return;
        }
        if (typeof execution.approvalRule !== 'string') problems.push(`resolveExecution of sample ${index + 1} gave no approvalRule string`);
        if (execution.display !== undefined && !ToolInputDisplaySchema.safeParse(execution.display).success) {
          problems.push(`resolveExecution of sample ${index + 1} gave a display that is not a ToolInputDisplay`);
        }
      } catch (error) {
        problems.push(`resolveExecution threw on sample ${index + 1}: ${errorMessage(error)}`);
      }
    });
    if (io.length > 0) problems.push(`resolveExecution of sample ${index + 1} did I/O: ${io.join(', ')}`);
  }
  return problems;
}
