import * as nodePath from 'node:path';
import { compileGitignoreLine, type GitignoreRule } from './gitignore';
import { byteForm, GlobSyntaxError } from './globRegex';

/**
 * Glob patterns as Glob's `pattern` and Grep's `glob` take them. The rule is the same for both:
 * a pattern without `/` matches file names at any depth (`*.ts` is `**\/*.ts`); a pattern with a
 * `/` is matched against the path relative to the search folder (`src/**\/*.ts`); `./` or `/` at
 * the start anchors a pattern without other slashes to the search folder itself (`./*.ts`).
 * An absolute pattern inside the search folder is made relative to it. Both are compiled as one
 * gitignore line, as `rg -g` compiles its globs (gitignore.ts, globRegex.ts).
 */

function danglingBackslashError(raw: string, what: 'glob' | 'pattern'): string {
  return (
    `The ${what} "${raw}" ends with a backslash that escapes nothing. ` +
    'A backslash makes the character after it literal: write two backslashes for one literal backslash, or leave it out.'
  );
}

/** A run of backslashes at the end that leaves one escaping nothing. */
function endsWithDanglingBackslash(pattern: string): boolean {
  let run = 0;
  for (let at = pattern.length - 1; at >= 0 && pattern[at] === '\\'; at--) run++;
  return run % 2 === 1;
}

/** The rule of one glob line, or the message that says why rg would refuse it. */
function compileGlobLine(line: string, raw: string, what: 'glob' | 'pattern'): GitignoreRule | undefined | { error: string } {
  try {
    return compileGitignoreLine(line, { allowUnclosedClass: false });
  } catch (error) {
    if (!(error instanceof GlobSyntaxError)) throw error;
    return { error: `The ${what} "${raw}" is not a valid glob: ${error.message}.` };
  }
}

/** Trailing whitespace goes unless escaped (`\\ `), as in a gitignore line; leading whitespace is part of the name, as in rg. */
function trimGlobEnd(raw: string): string {
  return raw.endsWith('\\ ') ? raw : raw.trimEnd();
}

function hasParentSegment(pattern: string): boolean {
  return pattern.split('/').some((segment) => segment === '..');
}

/** Makes an absolute pattern relative to the root; undefined when it lies outside. */
function relativeToRoot(pattern: string, root: string): string | undefined {
  if (pattern === root) return '';
  const prefix = root.endsWith('/') ? root : `${root}/`;
  return pattern.startsWith(prefix) ? pattern.slice(prefix.length) : undefined;
}

/** Grep's `glob`: one gitignore-style line, matched relative to the search folder, as `rg -g` does. */
export interface SearchGlob {
  readonly raw: string;
  /** `!pattern`: leave matching files (and folders) out. */
  readonly negated: boolean;
  readonly rule: GitignoreRule;
  /** The same glob as `rg -g` takes it (with rg running in the search folder). */
  readonly rgGlob: string;
}

export function compileSearchGlob(raw: string, root: string): SearchGlob | { error: string } {
  let body = trimGlobEnd(raw);
  const negated = body.startsWith('!');
  if (negated) body = body.slice(1);
  if (body === '') return { error: `The glob "${raw}" is empty. Use a pattern such as "*.ts" or "src/**/*.ts", or leave glob out.` };
  if (nodePath.isAbsolute(body)) {
    const rel = relativeToRoot(body, root);
    if (rel !== undefined) body = `/${rel}`;
  } else if (body.startsWith('./')) {
    body = `/${body.slice(2)}`;
  }
  if (hasParentSegment(body)) {
    return { error: `The glob "${raw}" contains "..". Globs are matched inside the search folder; set path to the folder to search instead.` };
  }
  if (endsWithDanglingBackslash(body)) return { error: danglingBackslashError(raw, 'glob') };
  const rule = compileGlobLine(body, raw, 'glob');
  if (rule && 'error' in rule) return rule;
  if (!rule) return { error: `The glob "${raw}" matches nothing. Use a pattern such as "*.ts" or "src/**/*.ts".` };
  return { raw, negated, rule, rgGlob: `${negated ? '!' : ''}${body}` };
}

/**
 * What a glob says about an entry (`relPath` relative to the search folder): a plain glob keeps
 * the files it matches and drops other files (folders are walked into); a `!glob` drops what it
 * matches, folders included.
 */
export function searchGlobAllows(glob: SearchGlob, relPath: string, isDir: boolean): boolean {
  const rule = glob.rule;
  const matched = (!rule.dirOnly || isDir) && ruleMatchesPath(rule, byteForm(relPath));
  if (glob.negated) return !matched;
  return isDir || matched;
}

/** Whether a rule's glob matches a path in byte form (globRegex.ts), whatever the entry is. */
export function ruleMatchesPath(rule: GitignoreRule, bytesPath: string): boolean {
  return rule.matcher.test(rule.basenameOnly ? bytesPath.slice(bytesPath.lastIndexOf('/') + 1) : bytesPath);
}

/** Glob's `pattern`, compiled: which files it lists and which folders can hold them. */
export interface GlobPattern {
  /** The pattern as a gitignore line (what `rg --files -g` takes for the same files). */
  readonly line: string;
  readonly rule: GitignoreRule;
  /** Folder names every match starts with (`src/lib/*.ts`: src, lib): other folders are not entered. */
  readonly dirPrefix: readonly string[];
  /** The depth of every match (`src/*.ts`: 2) when the pattern fixes it, so deeper folders are not entered. */
  readonly depth: number | undefined;
}

const GLOB_SYNTAX = /[*?[\]{}\\]/;

function globPattern(line: string, rule: GitignoreRule): GlobPattern {
  const segments = (line.startsWith('/') ? line.slice(1) : line).split('/');
  const dirPrefix: string[] = [];
  if (!rule.basenameOnly && line.includes('/')) {
    for (const segment of segments.slice(0, -1)) {
      if (GLOB_SYNTAX.test(segment) || segment === '') break;
      dirPrefix.push(segment);
    }
  }
  const fixed = !rule.basenameOnly && line.includes('/') && !/[*][*]|[[{\\]/.test(line);
  return { line, rule, dirPrefix, depth: fixed ? segments.length : undefined };
}

/** Glob's `pattern`, compiled as `rg -g` compiles it (relative to the search folder, anchored where it says so). */
export function compileGlobPattern(raw: string, root: string): GlobPattern | { error: string } {
  let pattern = trimGlobEnd(raw);
  if (pattern === '') return { error: 'The pattern is empty. Use a glob such as "**/*.ts".' };
  if (pattern.startsWith('!')) {
    return { error: `The pattern "${raw}" starts with "!": Glob takes one pattern of files to find, not exclusions. Narrow the pattern or the path instead.` };
  }
  let anchored = false;
  if (nodePath.isAbsolute(pattern)) {
    const rel = relativeToRoot(pattern, root);
    if (rel === undefined) {
      return {
        error:
          `The pattern "${raw}" is an absolute path outside the search folder (${root}). ` +
          `Put the folder in path and keep the pattern relative, e.g. path: "/some/dir", pattern: "**/*.ts".`,
      };
    }
    if (rel === '') return { error: `The pattern "${raw}" is the search folder itself. Use a pattern of files inside it, e.g. "**/*".` };
    pattern = rel;
    anchored = true;
  } else if (pattern.startsWith('./')) {
    pattern = pattern.slice(2);
    anchored = true;
  }
  if (hasParentSegment(pattern)) {
    return { error: `The pattern "${raw}" contains "..". Set path to the folder to search and keep the pattern inside it.` };
  }
  if (endsWithDanglingBackslash(pattern)) return { error: danglingBackslashError(raw, 'pattern') };
  // `dir/` lists what is inside dir (a gitignore line `dir/` would only match the folder).
  if (pattern.endsWith('/')) pattern = `${pattern}**`;
  // A line of its own: `/` anchors it, `\#` keeps a leading `#` from making it a comment.
  const line = anchored ? `/${pattern}` : pattern.startsWith('#') ? `\\${pattern}` : pattern;
  const rule = compileGlobLine(line, raw, 'pattern');
  if (rule && 'error' in rule) return rule;
  if (!rule) return { error: `The pattern "${raw}" matches no file. Use a glob such as "**/*.ts".` };
  return globPattern(line, rule);
}
