import { tryParseRule } from '../../tool/ruleMatch';
import type { SkillFileProblem } from './frontMatter';

/** Limits of the Agent Skills specification. */
export const SKILL_NAME_MAX_CHARS = 64;
export const SKILL_DESCRIPTION_MAX_CHARS = 1024;
export const SKILL_COMPATIBILITY_MAX_CHARS = 500;

const SKILL_NAME_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const ARGUMENT_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Why a name breaks the Agent Skills rules (lowercase letters, digits and single hyphens inside, at most 64), or undefined. */
export function skillNameProblem(name: string): string | undefined {
  if (name.length >= 1 && name.length <= SKILL_NAME_MAX_CHARS && SKILL_NAME_PATTERN.test(name)) return undefined;
  const length = name.length > SKILL_NAME_MAX_CHARS ? ` (it has ${name.length} characters)` : '';
  return `Skill name ${JSON.stringify(name)} is invalid${length}: use 1–${SKILL_NAME_MAX_CHARS} lowercase letters, digits and hyphens, with no hyphen at the start, at the end or twice in a row (e.g. "pdf-processing").`;
}

/** The front matter of one skill, checked; `name` and `description` are absent when the skill cannot be listed. */
export interface SkillFields {
  readonly name?: string;
  readonly description?: string;
  readonly allowedTools: readonly string[];
  readonly disableModelInvocation: boolean;
  readonly argumentNames: readonly string[];
  readonly license?: string;
  readonly compatibility?: string;
  readonly problems: readonly SkillFileProblem[];
}

/** Checks the fields against the Agent Skills rules; `folder` is the skill folder's name. */
export function checkSkillFields(fields: Readonly<Record<string, unknown>>, folder: string): SkillFields {
  const problems: SkillFileProblem[] = [];
  const error = (message: string) => problems.push({ severity: 'error', message });
  const warn = (message: string) => problems.push({ severity: 'warning', message });

  let name: string | undefined;
  const rawName = fields.name;
  if (rawName === undefined || rawName === null || rawName === '') {
    if (skillNameProblem(folder) === undefined) {
      name = folder;
      warn(`SKILL.md has no name; the folder name "${folder}" is used. Add "name: ${folder}" to the front matter.`);
    } else {
      error(`SKILL.md has no name, and the folder name cannot stand in for it. ${skillNameProblem(folder)!}`);
    }
  } else if (typeof rawName !== 'string') {
    error(`The name must be text, not ${describe(rawName)}: write "name: ${folder}".`);
  } else {
    const problem = skillNameProblem(rawName);
    if (problem !== undefined) error(problem);
    else {
      name = rawName;
      if (rawName !== folder) warn(`Skill name "${rawName}" differs from its folder "${folder}"; rename one so they match (it is listed as "${rawName}").`);
    }
  }

  let description: string | undefined;
  const rawDescription = fields.description;
  if (typeof rawDescription !== 'string' || rawDescription.trim() === '') {
    error(
      rawDescription === undefined || rawDescription === null || rawDescription === ''
        ? 'SKILL.md has no description: add "description: <what the skill does and when to use it>" to the front matter.'
        : `The description must be text, not ${describe(rawDescription)}: quote it.`,
    );
  } else {
    description = rawDescription.replace(/\s+/g, ' ').trim();
    if (description.length > SKILL_DESCRIPTION_MAX_CHARS) warn(`The description has ${description.length} characters (the Agent Skills limit is ${SKILL_DESCRIPTION_MAX_CHARS}); shorten it.`);
  }

  const compatibility = optionalText(fields.compatibility, 'compatibility', warn);
  if (compatibility !== undefined && compatibility.length > SKILL_COMPATIBILITY_MAX_CHARS) warn(`compatibility has ${compatibility.length} characters (the Agent Skills limit is ${SKILL_COMPATIBILITY_MAX_CHARS}); shorten it.`);
  const license = optionalText(fields.license, 'license', warn);

  let disableModelInvocation = false;
  const rawDisable = fields['disable-model-invocation'];
  if (rawDisable === true) disableModelInvocation = true;
  else if (rawDisable !== undefined && rawDisable !== false && rawDisable !== null) warn(`disable-model-invocation must be true or false, not ${describe(rawDisable)}; the skill stays model-invocable.`);

  return {
    ...(name !== undefined ? { name } : {}),
    ...(description !== undefined ? { description } : {}),
    allowedTools: allowedToolRules(fields['allowed-tools'], warn),
    disableModelInvocation,
    argumentNames: argumentNames(fields.arguments, warn),
    ...(license !== undefined ? { license } : {}),
    ...(compatibility !== undefined ? { compatibility } : {}),
    problems,
  };
}

function optionalText(value: unknown, key: string, warn: (message: string) => void): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  warn(`${key} must be text, not ${describe(value)}; it is ignored.`);
  return undefined;
}

/**
 * `allowed-tools` as approval rules: a space- or comma-separated string (the spec's form) or a
 * list. Claude Code's `Bash(git:*)` prefix form becomes `Bash(git *)`. An entry that is not a
 * rule is reported and not granted.
 */
function allowedToolRules(value: unknown, warn: (message: string) => void): string[] {
  if (value === undefined || value === null) return [];
  let entries: string[];
  if (typeof value === 'string') entries = splitOutsideParentheses(value);
  else if (Array.isArray(value) && value.every((v) => typeof v === 'string')) entries = value.flatMap((v: string) => splitOutsideParentheses(v));
  else {
    warn(`allowed-tools must be a list of tool rules (e.g. "Read Bash(git status)"), not ${describe(value)}; nothing is granted.`);
    return [];
  }
  const rules: string[] = [];
  for (const entry of entries) {
    const rule = entry.replace(/:\*\)$/, ' *)');
    const parsed = tryParseRule(rule);
    if (typeof parsed === 'string') warn(`allowed-tools entry "${entry}" is not a tool rule (${parsed}); it is not granted.`);
    else if (!rules.includes(parsed.raw)) rules.push(parsed.raw);
  }
  return rules;
}

/** Splits on spaces and commas that are not inside parentheses. */
function splitOutsideParentheses(text: string): string[] {
  const entries: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of text) {
    if (char === '(') depth++;
    else if (char === ')') depth = Math.max(0, depth - 1);
    if (depth === 0 && (char === ',' || /\s/.test(char))) {
      if (current.trim() !== '') entries.push(current.trim());
      current = '';
    } else current += char;
  }
  if (current.trim() !== '') entries.push(current.trim());
  return entries;
}

function argumentNames(value: unknown, warn: (message: string) => void): string[] {
  if (value === undefined || value === null) return [];
  const names = typeof value === 'string' ? value.split(/[\s,]+/).filter(Boolean) : Array.isArray(value) && value.every((v) => typeof v === 'string') ? (value as string[]) : undefined;
  if (names === undefined) {
    warn(`arguments must be a list of names (e.g. [file, mode]), not ${describe(value)}; it is ignored.`);
    return [];
  }
  const bad = names.filter((n) => !ARGUMENT_NAME_PATTERN.test(n));
  if (bad.length > 0) warn(`arguments ${bad.map((b) => JSON.stringify(b)).join(', ')} are not names (letters, digits, "_"); they are ignored.`);
  return names.filter((n) => ARGUMENT_NAME_PATTERN.test(n));
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'a mapping' : `${typeof value} ${JSON.stringify(value)}`;
}
