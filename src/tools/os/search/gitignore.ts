import { byteForm, type GlobAutomaton, globToRegex, GlobSyntaxError } from './globRegex';

/**
 * gitignore rules, compiled the way ripgrep's `ignore` crate compiles them (so the builtin search
 * and ripgrep agree on what is ignored):
 *
 * - `#` starts a comment; trailing whitespace is dropped unless escaped (`\ `);
 * - `!` re-includes (whitelists); `\!` and `\#` are literal;
 * - a leading `/` anchors the pattern to the directory of the file; so does a `/` in the middle;
 *   a pattern without `/` matches a name at any depth;
 * - a trailing `/` matches directories only;
 * - the glob itself is read as rg's globset reads it (globRegex.ts); a line rg refuses (a
 *   backslash that escapes nothing, a reversed range, an unbalanced brace) is dropped, as rg
 *   drops it;
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
  /**
   * Tested against the base name only, else the whole relative path: a pattern without `/` is
   * `**\/pattern`, which on a path is the same test as `pattern` on its base name unless the
   * pattern can match a `/` itself (a negated set can).
   */
  readonly basenameOnly: boolean;
  /** Runs on byteForm(path): the glob's regex, or its automaton when the regex could backtrack for long (globRegex.ts). */
  readonly matcher: RegExp | GlobAutomaton;
  /** A basenameOnly rule's glob of the base name (`*.ts` of `**\/*.ts`): the form rg's file types take. */
  readonly nameGlob?: string;
}

export interface GitignoreLineOptions {
  /** Ignore files take an unclosed `[` literally; `rg -g` refuses it (GlobSyntaxError). */
  readonly allowUnclosedClass: boolean;
}

/**
 * Compiles one gitignore line; undefined for blank lines and comments. A glob rg refuses throws
 * GlobSyntaxError (parseGitignoreLine's callers drop the line or report it).
 */
export function compileGitignoreLine(rawLine: string, options: GitignoreLineOptions): GitignoreRule | undefined {
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
  // A name at any depth: `name` is `**/name`.
  if (!anchored && !line.includes('/') && !(glob.startsWith('**/') || glob === '**')) glob = `**/${glob}`;
  // `dir/**` matches everything inside dir, but not dir itself.
  if (glob.endsWith('/**')) glob = `${glob}/*`;
  const name = glob.slice(3);
  if (glob.startsWith('**/') && !name.includes('/')) {
    const nameGlob = globToRegex(name, options);
    if (!nameGlob.crossesSlash) return { source, whitelist, dirOnly, basenameOnly: true, matcher: nameGlob.matcher, nameGlob: name };
  }
  return { source, whitelist, dirOnly, basenameOnly: false, matcher: globToRegex(glob, options).matcher };
}

/** One line of an ignore file: a line rg refuses is dropped, as rg drops it (with a warning). */
export function parseGitignoreLine(rawLine: string): GitignoreRule | undefined {
  try {
    return compileGitignoreLine(rawLine, { allowUnclosedClass: true });
  } catch (error) {
    if (error instanceof GlobSyntaxError) return undefined;
    throw error;
  }
}

/** The rules of one ignore file (or one glob), matched against paths relative to its directory. */
export class GitignoreRules {
  private readonly anyBasenameOnly: boolean;
  /** Every rule ignores by base name (the common `*.log`, `node_modules` kind): one test. */
  private readonly basenameIgnores: RegExp | undefined;

  constructor(readonly rules: readonly GitignoreRule[]) {
    this.anyBasenameOnly = rules.some((r) => r.basenameOnly);
    const regexes = rules.map((r) => (r.basenameOnly && !r.whitelist && !r.dirOnly && r.matcher instanceof RegExp ? r.matcher : undefined));
    if (rules.length > 1 && regexes.every((r) => r !== undefined)) {
      this.basenameIgnores = new RegExp(regexes.map((r) => `(?:${r.source})`).join('|'));
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
    return this.matchBytes(byteForm(relPath), isDir);
  }

  /** match() on a path already in byte form (globRegex.ts). */
  matchBytes(relPath: string, isDir: boolean): IgnoreVerdict {
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
      if (rule.matcher.test(rule.basenameOnly ? base : relPath)) return rule.whitelist ? 'whitelist' : 'ignore';
    }
    return undefined;
  }
}
