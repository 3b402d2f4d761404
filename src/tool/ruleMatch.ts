import * as nodePath from 'node:path';
import picomatch from 'picomatch';
import { ANY_TEXT, commandsRun, OPTIONAL_WORDS } from './commandsRun';
import { isMcpToolName } from './contract';
import { rewriteGlobBackslashes } from './globBackslashes';
import { parseShellCommand, redirectionWritesFile } from './shellSplit';

/**
 * Approval rules: `Tool`, `Tool(args)`, and `mcp__server__*` globs. The argument part is matched
 * by the tool (RunnableToolExecution.matchesRule) with one of the matchers below: path rules use
 * path globs, command rules are globs over the whole command text. A leading `!` negates.
 */
export interface ParsedRule {
  readonly raw: string;
  /** A tool name, or a glob over MCP tool names. */
  readonly tool: string;
  /** The text inside the parentheses; undefined for a bare `Tool` (and for `Tool()`). */
  readonly args?: string;
}

export class RuleParseError extends Error {
  override readonly name = 'RuleParseError';
}

const GLOB_CHARS = /[*?[\]{}]/;

export function hasGlobChars(text: string): boolean {
  return GLOB_CHARS.test(text);
}

export function parseRule(text: string): ParsedRule {
  const raw = text.trim();
  if (raw === '') throw new RuleParseError('Rule is empty.');
  const open = raw.indexOf('(');
  let tool = raw;
  let args: string | undefined;
  if (open >= 0) {
    if (!raw.endsWith(')')) throw new RuleParseError(`Rule "${raw}" has no closing parenthesis.`);
    tool = raw.slice(0, open).trim();
    args = raw.slice(open + 1, -1);
    if (args.trim() === '') args = undefined;
  } else if (raw.includes(')')) {
    throw new RuleParseError(`Rule "${raw}" has a closing parenthesis without an opening one.`);
  }
  if (tool === '') throw new RuleParseError(`Rule "${raw}" has no tool name.`);
  if (!/^[A-Za-z0-9_*?[\]{}.,-]+$/.test(tool)) throw new RuleParseError(`Rule "${raw}" has an invalid tool name "${tool}".`);
  if (hasGlobChars(tool) && !isMcpToolName(tool)) {
    throw new RuleParseError(
      `Rule "${raw}": a wildcard in the tool name only applies to MCP tools (e.g. mcp__github__*); write builtin tool names whole.`,
    );
  }
  return args === undefined ? { raw, tool } : { raw, tool, args };
}

/** Parses a rule, or returns the error's message. */
export function tryParseRule(text: string): ParsedRule | string {
  try {
    return parseRule(text);
  } catch (error) {
    return (error as Error).message;
  }
}

export function ruleMatchesToolName(rule: ParsedRule, toolName: string): boolean {
  if (!hasGlobChars(rule.tool)) return rule.tool === toolName;
  return isMcpToolName(toolName) && picomatch.isMatch(toolName, rule.tool, { dot: true });
}

export interface RuleSubject {
  readonly toolName: string;
  matchesRule?(ruleArgs: string, mode?: RuleMatchMode): boolean;
}

/** Whether a rule covers a call: the name matches, and the argument part (if any) matches too. */
export function ruleMatches(rule: ParsedRule, subject: RuleSubject, mode: RuleMatchMode = 'allow'): boolean {
  if (!ruleMatchesToolName(rule, subject.toolName)) return false;
  if (rule.args === undefined) return true;
  return subject.matchesRule ? subject.matchesRule(rule.args, mode) : false;
}

const RULE_ESCAPED = /[\\*?[\]{}()!+@|]/g;

/** `Tool(<subject>)` with glob and rule metacharacters escaped, so it matches this subject only. */
export function literalRule(toolName: string, subject: string): string {
  return `${toolName}(${escapeRuleText(subject)})`;
}

export function escapeRuleText(subject: string): string {
  return subject.replace(RULE_ESCAPED, (c) => '\\' + c);
}

function splitNegation(pattern: string): { negated: boolean; body: string } {
  const trimmed = pattern.trim();
  return trimmed.startsWith('!') ? { negated: true, body: trimmed.slice(1).trim() } : { negated: false, body: trimmed };
}

const CASE_INSENSITIVE_FS = process.platform === 'darwin' || process.platform === 'win32';

export interface PathRuleContext {
  readonly cwd: string;
  readonly homeDir?: string;
}

/**
 * Path rules: a glob over canonical absolute paths (`*` stays inside one directory, `**` crosses
 * them). A relative pattern is resolved against the working directory, `~/` against home.
 */
export function matchPathRule(pattern: string, path: string, ctx: PathRuleContext): boolean {
  const { negated, body } = splitNegation(pattern);
  if (body === '') return !negated;
  let expanded = body;
  if (ctx.homeDir && (body === '~' || body.startsWith('~/'))) expanded = ctx.homeDir + body.slice(1);
  if (expanded.startsWith('./')) expanded = expanded.slice(2);
  const absolute = rewriteGlobBackslashes(nodePath.isAbsolute(expanded) ? expanded : joinGlob(ctx.cwd, expanded));
  // A pattern ending in a backslash that escapes nothing matches nothing (as in git).
  if (absolute === undefined) return negated;
  const matched =
    picomatch.isMatch(path, absolute, { dot: true, nocase: CASE_INSENSITIVE_FS }) ||
    // `dir/**` also covers `dir` itself.
    (absolute.endsWith('/**') && picomatch.isMatch(path, absolute.slice(0, -3), { dot: true, nocase: CASE_INSENSITIVE_FS }));
  return negated ? !matched : matched;
}

function joinGlob(dir: string, pattern: string): string {
  // Escape the directory so glob characters in it are taken literally.
  const escapedDir = dir.replace(/[\\*?[\]{}()!+@|]/g, (c) => '\\' + c);
  return escapedDir.endsWith('/') ? escapedDir + pattern : `${escapedDir}/${pattern}`;
}

function hasUnescapedGlob(text: string): boolean {
  return /(^|[^\\])(\\\\)*[*?]/.test(text);
}

function unescapeRule(text: string): string {
  return text.replace(/\\(.)/g, '$1');
}

/**
 * Which way a rule is used. An allow rule must cover every part of a compound command; a deny
 * rule fires when any part matches. Either way, doubt never allows.
 */
export type RuleMatchMode = 'allow' | 'deny';

function commandPositive(body: string, command: string, mode: RuleMatchMode): boolean {
  if (body === '*') return true;
  const rules = rulePatterns(body);
  const matchesOneCommand = (text: string) => rules.some((rule) => wildcardMatches(rule, text));
  if (mode === 'allow') {
    const parsed = parseShellCommand(command);
    const parts = parsed.commands;
    // A rule written for exactly this command (a stored session grant) covers it, whatever it holds.
    if (!hasUnescapedGlob(body) && unescapeRule(body).trim() === command.trim()) return true;
    if (parsed.opaque || parts.length === 0) return false;
    // A rule for a command does not cover that command writing a file by redirection
    // (`Bash(cat:*)` is not `cat x > ~/.bashrc`), unless the rule itself redirects.
    const ruleRedirects = body.includes('>');
    return parsed.commands.every((part) => matchesOneCommand(part.text) && (ruleRedirects || !part.redirections.some(redirectionWritesFile)));
  }
  if (matchesOneCommand(command.trim())) return true;
  // A deny rule fires when any command the line may run could match it, whatever the spelling;
  // what cannot be decided (a command name known only at run time, `eval $x`, `source`, …) matches.
  const runs = commandsRun(command);
  if (!runs.decided) return true;
  if (runs.texts.some(matchesOneCommand)) return true;
  return runs.patterns.some((subject) => rules.some((rule) => patternsIntersect(rule, subject)));
}

/** In rule patterns: `*` (any text) and `?` (any one character); other entries are character codes. */
const RULE_STAR = -1;
const RULE_ONE = -2;

/** A rule glob as a pattern (`literal`: no wildcards, no escapes); a backslash escapes the next character. */
function toRulePattern(glob: string, literal: boolean): number[] {
  const out: number[] = [];
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (!literal && c === '\\' && i + 1 < glob.length) out.push(glob.charCodeAt(++i));
    else if (!literal && c === '*') out.push(RULE_STAR);
    else if (!literal && c === '?') out.push(RULE_ONE);
    else out.push(glob.charCodeAt(i));
  }
  return out;
}

/**
 * Whether the whole text matches a rule pattern, in at most (pattern length x text length) steps:
 * on a mismatch only the last `*` takes one more character. (A regex of `.*` per star
 * backtracks polynomially: `Bash(echo * * *x)` took 6 s on a 6 KB command.)
 */
function wildcardMatches(pattern: readonly number[], text: string): boolean {
  let p = 0;
  let t = 0;
  let star = -1;
  let resume = 0;
  while (t < text.length) {
    const c = pattern[p];
    if (c === RULE_ONE || c === text.charCodeAt(t)) {
      p++;
      t++;
    } else if (c === RULE_STAR) {
      star = p++;
      resume = t;
    } else if (star >= 0) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (pattern[p] === RULE_STAR) p++;
  return p === pattern.length;
}

/** A command rule as patterns over a command's text: a glob, or `prefix:*` (`git:*`: `git` alone or `git <anything>`) as `prefix` and `prefix *`. */
function rulePatterns(body: string): number[][] {
  if (body.endsWith(':*') && !body.endsWith('\\:*')) {
    const prefix = toRulePattern(unescapeRule(body.slice(0, -2)).trim(), true);
    return [prefix, [...prefix, 32, RULE_STAR]];
  }
  return [toRulePattern(body.replace(/\s+/g, ' '), false)];
}

/** Past this many states the intersection is not computed, and a deny rule counts as matching. */
const MAX_INTERSECTION_STATES = 4_000_000;

/**
 * Whether some text matches both a rule pattern and a command pattern (whose ANY_TEXT parts stand
 * for text known only at run time, and OPTIONAL_WORDS for words that may vanish): a search over
 * pairs of positions.
 */
function patternsIntersect(rule: readonly number[], subject: readonly number[]): boolean {
  const n = rule.length;
  const m = subject.length;
  const width = m + 1;
  if ((n + 1) * width > MAX_INTERSECTION_STATES) return true;
  const seen = new Uint8Array((n + 1) * width);
  const stack: number[] = [0];
  seen[0] = 1;
  const visit = (i: number, j: number) => {
    const state = i * width + j;
    if (!seen[state]) {
      seen[state] = 1;
      stack.push(state);
    }
  };
  while (stack.length > 0) {
    const state = stack.pop()!;
    const i = Math.floor(state / width);
    const j = state % width;
    if (i === n && j === m) return true;
    const r = rule[i];
    const s = subject[j];
    if (r === RULE_STAR) visit(i + 1, j);
    if (s === ANY_TEXT) visit(i, j + 1);
    if (s === OPTIONAL_WORDS) {
      // No words at all, or a blank and then the ANY_TEXT after it.
      visit(i, j + 2);
      if (r === 32 || r === RULE_ONE || r === RULE_STAR) visit(r === RULE_STAR ? i : i + 1, j + 1);
      continue;
    }
    if (r === undefined || s === undefined) continue;
    // Both sides take one character.
    if (r >= 0 && s >= 0 && r !== s) continue;
    const nextI = r === RULE_STAR ? i : i + 1;
    const nextJ = s === ANY_TEXT ? j : j + 1;
    if (nextI !== i || nextJ !== j) visit(nextI, nextJ);
  }
  return false;
}

/**
 * Command rules: a glob over the whole text of each simple command (`*` matches anything,
 * including `/` and spaces), or `prefix:*`. For an allow rule, a compound command (`a && b`,
 * `a | b`, `a; b`) is covered only when every part is, and a command with substitutions (`$(…)`,
 * backticks) only by `*`; a deny rule fires when any part matches. `!pattern` inverts.
 */
export function matchCommandRule(pattern: string, command: string, mode: RuleMatchMode = 'allow'): boolean {
  const { negated, body } = splitNegation(pattern);
  if (body === '') return !negated;
  if (!negated) return commandPositive(body, command, mode);
  return !commandPositive(body, command, mode === 'allow' ? 'deny' : 'allow');
}

/** Plain glob subjects (URLs, queries, patterns): `*` matches anything. */
export function matchTextRule(pattern: string, subject: string): boolean {
  const { negated, body } = splitNegation(pattern);
  if (body === '') return !negated;
  const matched = wildcardMatches(toRulePattern(body, false), subject);
  return negated ? !matched : matched;
}
