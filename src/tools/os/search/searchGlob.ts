import * as nodePath from 'node:path';
import { rewriteGlobBackslashes } from '../../../tool/globBackslashes';
import { type GitignoreRule, parseGitignoreLine } from './gitignore';

/**
 * Glob patterns as Glob's `pattern` and Grep's `glob` take them. The rule is the same for both:
 * a pattern without `/` matches file names at any depth (`*.ts` is `**\/*.ts`); a pattern with a
 * `/` is matched against the path relative to the search folder (`src/**\/*.ts`); `./` or `/` at
 * the start anchors a pattern without other slashes to the search folder itself (`./*.ts`).
 * An absolute pattern inside the search folder is made relative to it.
 */

function danglingBackslashError(raw: string, what: 'glob' | 'pattern'): string {
  return (
    `The ${what} "${raw}" ends with a backslash that escapes nothing. ` +
    'A backslash makes the character after it literal: write two backslashes for one literal backslash, or leave it out.'
  );
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
  let body = raw.trim();
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
  if (rewriteGlobBackslashes(body) === undefined) return { error: danglingBackslashError(raw, 'glob') };
  const rule = parseGitignoreLine(body);
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
  const matched = (!rule.dirOnly || isDir) && rule.regex.test(rule.basenameOnly ? relPath.slice(relPath.lastIndexOf('/') + 1) : relPath);
  if (glob.negated) return !matched;
  return isDir || matched;
}

/** Glob's `pattern`, rewritten for tinyglobby (relative to the search folder, backslash escapes as git reads them). */
export function normalizeGlobPattern(raw: string, root: string): { pattern: string } | { error: string } {
  let pattern = raw.trim();
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
  if (pattern.endsWith('/')) pattern = `${pattern}**`;
  if (!anchored && !pattern.includes('/') && !pattern.startsWith('**')) pattern = `**/${pattern}`;
  const safePattern = rewriteGlobBackslashes(pattern);
  if (safePattern === undefined) return { error: danglingBackslashError(raw, 'pattern') };
  return { pattern: safePattern };
}
