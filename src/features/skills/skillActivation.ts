import type { LoadedSkill } from './contract';

/** Splits `args` on whitespace; double or single quotes group words (`a "b c"` → a, b c). */
export function splitArguments(args: string): string[] {
  const words: string[] = [];
  const pattern = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (const match of args.matchAll(pattern)) words.push(match[1] ?? match[2] ?? match[3]!);
  return words;
}

const PLACEHOLDER = /\$(ARGUMENTS|[1-9][0-9]?|[A-Za-z_][A-Za-z0-9_]*)/g;

/**
 * The body with `$ARGUMENTS` (all of `args`), `$1`…`$99` (the words of `args`) and `$<name>` (the
 * word at the position of `name` in the front matter's `arguments`) filled in. Other `$WORDS`
 * (`$HOME` in a shell snippet) stay. With arguments but no placeholder, an `ARGUMENTS:` line is added.
 */
export function expandSkillBody(body: string, args: string, argumentNames: readonly string[]): string {
  const words = splitArguments(args);
  let used = false;
  const expanded = body.replace(PLACEHOLDER, (whole, key: string) => {
    if (key === 'ARGUMENTS') {
      used = true;
      return args;
    }
    if (/^[0-9]+$/.test(key)) {
      used = true;
      return words[Number(key) - 1] ?? '';
    }
    const index = argumentNames.indexOf(key);
    if (index < 0) return whole;
    used = true;
    return words[index] ?? '';
  });
  return !used && args.trim() !== '' ? `${expanded.trimEnd()}\n\nARGUMENTS: ${args}` : expanded;
}

/** Attribute text in double quotes. */
function attribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/** The tool result of an activation: header lines, the expanded body in `<skill>`, then its files. */
export function formatActivation(loaded: LoadedSkill, body: string, granted: readonly string[]): string {
  const { skill } = loaded;
  // The body cannot close the wrapper early.
  const inner = body.trim().replace(/<\/skill/gi, '<\\/skill');
  const lines = [`skill: ${skill.name}`, `dir: ${skill.dir}`, `scope: ${skill.scope}`];
  if (granted.length > 0) lines.push(`granted for this session: ${granted.join(', ')}`);
  lines.push('', `<skill name="${attribute(skill.name)}" dir="${attribute(skill.dir)}">`, inner, '</skill>', '');
  if (loaded.files.length === 0) lines.push('files: none besides SKILL.md');
  else {
    lines.push('files:', ...loaded.files.map((f) => `- ${f}`));
    if (loaded.moreFiles) lines.push(`- … more files: Glob ${skill.dir} to see them all`);
    lines.push('Relative paths are relative to dir.');
  }
  return lines.join('\n');
}
