import picomatch from 'picomatch';
import { rewriteGlobBackslashes } from '../../../tool/globBackslashes';

/**
 * gitignore rules, compiled the way ripgrep's `ignore` crate compiles them (so the builtin search
 * and ripgrep agree on what is ignored):
 *
 * - `#` starts a comment; trailing whitespace is dropped unless escaped (`\ `);
 * - `!` re-includes (whitelists); `\!` and `\#` are literal;
 * - a leading `/` anchors the pattern to the directory of the file; so does a `/` in the middle;
 *   a pattern without `/` matches a name at any depth;
 * - a trailing `/` matches directories only;
 * - `*` and `?` never match `/`, `**` spans directories, `{a,b}` alternates, `\` escapes (`\\` is
 *   a literal backslash; a line ending in a backslash that escapes nothing is dropped, as ripgrep
 *   drops it and git never matches it);
 * - the last rule that matches decides.
 *
 * One rule set matches one path on its own: unlike the `ignore` npm package, it never looks at
 * the parent directories of the path, because ripgrep (like git) decides each directory when it
 * walks into it, and another ignore file may have re-included that directory.
 */
export type IgnoreVerdict = 'ignore' | 'whitelist' | undefined;

export interface GitignoreRule {
  /** The line as written (trimmed). */
  readonly source: string;
  readonly whitelist: boolean;
  readonly dirOnly: boolean;
  /** Tested against the base name only (a pattern without `/`), else the whole relative path. */
  readonly basenameOnly: boolean;
  readonly regex: RegExp;
}

const GLOB_OPTIONS: picomatch.PicomatchOptions = { dot: true, nonegate: true, noextglob: true };

/** Compiles one gitignore line; undefined for blank lines and comments. */
export function parseGitignoreLine(rawLine: string): GitignoreRule | undefined {
  let line = rawLine;
  if (line.startsWith('#')) return undefined;
  if (!line.endsWith('\\ ')) line = line.trimEnd();
  if (line === '') return undefined;
  const source = line;
  let whitelist = false;
  let anchored = false;
  if (line.startsWith('\\!') || line.startsWith('\\#')) {
    line = line.slice(1);
    anchored = line.startsWith('/');
  } else {
    if (line.startsWith('!')) {
      whitelist = true;
      line = line.slice(1);
    }
    if (line.startsWith('/')) {
      line = line.slice(1);
      anchored = true;
    }
  }
  let dirOnly = false;
  if (line.endsWith('/')) {
    dirOnly = true;
    line = line.slice(0, -1);
    if (line.endsWith('\\')) line = line.slice(0, -1);
  }
  if (line === '') return undefined;
  let glob = line;
  let basenameOnly = false;
  if (!anchored && !line.includes('/')) {
    // A name at any depth: `**/name`, tested on the base name.
    basenameOnly = !line.includes('**');
    if (!basenameOnly && !(glob.startsWith('**/') || glob === '**')) glob = `**/${glob}`;
  }
  // `dir/**` matches everything inside dir, but not dir itself.
  if (glob.endsWith('/**')) glob = `${glob}/*`;
  const safeGlob = rewriteGlobBackslashes(glob);
  if (safeGlob === undefined) return undefined;
  let regex: RegExp;
  try {
    regex = picomatch.makeRe(safeGlob, GLOB_OPTIONS);
  } catch {
    return undefined;
  }
  return { source, whitelist, dirOnly, basenameOnly, regex };
}

/** The rules of one ignore file (or one glob), matched against paths relative to its directory. */
export class GitignoreRules {
  private readonly anyBasenameOnly: boolean;
  /** Every rule ignores by base name (the common `*.log`, `node_modules` kind): one test. */
  private readonly basenameIgnores: RegExp | undefined;

  constructor(readonly rules: readonly GitignoreRule[]) {
    this.anyBasenameOnly = rules.some((r) => r.basenameOnly);
    if (rules.length > 1 && rules.every((r) => r.basenameOnly && !r.whitelist && !r.dirOnly)) {
      this.basenameIgnores = new RegExp(rules.map((r) => `(?:${r.regex.source})`).join('|'), rules[0]!.regex.flags);
    }
  }

  static parse(text: string): GitignoreRules {
    const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
    const rules: GitignoreRule[] = [];
    for (const line of lines) {
      const rule = parseGitignoreLine(line);
      if (rule) rules.push(rule);
    }
    return new GitignoreRules(rules);
  }

  get isEmpty(): boolean {
    return this.rules.length === 0;
  }

  /** `relPath` uses `/` and has no leading `./` or `/`. The last matching rule decides. */
  match(relPath: string, isDir: boolean): IgnoreVerdict {
    const rules = this.rules;
    let base = relPath;
    if (this.anyBasenameOnly) {
      const slash = relPath.lastIndexOf('/');
      if (slash >= 0) base = relPath.slice(slash + 1);
    }
    if (this.basenameIgnores) return this.basenameIgnores.test(base) ? 'ignore' : undefined;
    for (let i = rules.length - 1; i >= 0; i--) {
      const rule = rules[i]!;
      if (rule.dirOnly && !isDir) continue;
      if (rule.regex.test(rule.basenameOnly ? base : relPath)) return rule.whitelist ? 'whitelist' : 'ignore';
    }
    return undefined;
  }
}
