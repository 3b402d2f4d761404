/**
 * The `matcher` of a hook group, read as Claude Code reads it: absent, `""` or `*` matches every
 * tool; a text of only letters, digits, `_` and `|` is one exact name or `|`-separated exact names;
 * anything else is a JavaScript regular expression tested against the name (unanchored, as there:
 * `mcp__github__.*` matches the github server's tools, `^Bash` names starting with Bash).
 */
export type ToolNameMatcher = (toolName: string) => boolean;

const EXACT_NAMES = /^[A-Za-z0-9_|]+$/;
/** Tool names of one agent are few; past this many the cache starts over (a host that invents names). */
const MAX_CACHED_NAMES = 1000;

export const matchAllTools: ToolNameMatcher = () => true;

/** Throws SyntaxError (with the regex's own message) for a pattern that does not compile. */
export function compileToolMatcher(matcher: string | undefined): ToolNameMatcher {
  if (matcher === undefined || matcher === '' || matcher === '*') return matchAllTools;
  if (EXACT_NAMES.test(matcher)) {
    const names = new Set(matcher.split('|').filter(Boolean));
    return (toolName) => names.has(toolName);
  }
  const regex = new RegExp(matcher);
  // A name is tested once: later calls of the same tool cost a map lookup.
  const seen = new Map<string, boolean>();
  return (toolName) => {
    let matches = seen.get(toolName);
    if (matches === undefined) {
      if (seen.size >= MAX_CACHED_NAMES) seen.clear();
      matches = regex.test(toolName);
      seen.set(toolName, matches);
    }
    return matches;
  };
}
