import { parseDocument } from 'yaml';

/** A problem found while reading one SKILL.md; the catalog adds the path. */
export interface SkillFileProblem {
  readonly severity: 'error' | 'warning';
  readonly message: string;
}

export interface SkillFileText {
  /** The front matter's keys and values; undefined when there is none (or it is unusable). */
  readonly fields: Readonly<Record<string, unknown>> | undefined;
  /** Everything after the closing `---` line. */
  readonly body: string;
  readonly problems: readonly SkillFileProblem[];
}

/** The keys the lenient reader recovers when the YAML is invalid (the ones a skill cannot do without, and the ones that grant). */
const LENIENT_KEYS: ReadonlySet<string> = new Set(['name', 'description', 'allowed-tools', 'disable-model-invocation']);

/**
 * Splits a SKILL.md into front matter and body and parses the front matter with `yaml` (core
 * schema, no custom tags). Invalid YAML, most often an unquoted `: ` in `description`, is read
 * again line by line (`key: value` with continuation lines) and reported, never dropped.
 */
export function parseSkillFile(text: string): SkillFileText {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const lines = source.split(/\r?\n/);
  if (lines[0]?.trimEnd() !== '---') {
    return { fields: undefined, body: source, problems: [{ severity: 'error', message: 'SKILL.md has no front matter: start it with a "---" line, then "name: …" and "description: …", then a closing "---" line.' }] };
  }
  const close = lines.findIndex((line, i) => i > 0 && (line.trimEnd() === '---' || line.trimEnd() === '...'));
  if (close < 0) {
    return { fields: undefined, body: '', problems: [{ severity: 'error', message: 'SKILL.md front matter has no closing "---" line: end the name and description block with one.' }] };
  }
  const frontMatter = lines.slice(1, close).join('\n');
  const body = lines.slice(close + 1).join('\n');
  const doc = parseDocument(frontMatter, { schema: 'core', logLevel: 'silent', uniqueKeys: true, prettyErrors: false });
  const firstError = doc.errors[0];
  if (firstError) {
    // The front matter starts on the file's second line.
    const line = frontMatter.slice(0, firstError.pos[0]).split('\n').length + 1;
    const reason = firstError.message.split(' at line ')[0]!.trim();
    return {
      fields: readLeniently(lines.slice(1, close)),
      body,
      problems: [{ severity: 'warning', message: `SKILL.md front matter is not valid YAML (line ${line}: ${reason}); read leniently — quote the description.` }],
    };
  }
  const problems: SkillFileProblem[] = doc.warnings.map((w) => ({ severity: 'warning', message: `SKILL.md front matter: ${w.message.split(' at line ')[0]!.trim()}.` }));
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    return { fields: undefined, body, problems: [...problems, { severity: 'error', message: `SKILL.md front matter cannot be read: ${(error as Error).message}.` }] };
  }
  if (value === null || value === undefined) return { fields: {}, body, problems };
  if (typeof value !== 'object' || Array.isArray(value)) {
    return { fields: undefined, body, problems: [...problems, { severity: 'error', message: 'SKILL.md front matter is not a set of "key: value" lines: write "name: …" and "description: …".' }] };
  }
  return { fields: value as Record<string, unknown>, body, problems };
}

/**
 * `key: value` lines at the start of a line, for the keys that matter; an indented line (or a
 * `- item` line) continues the key before it. Quotes around a whole value are removed.
 */
function readLeniently(lines: readonly string[]): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  let key: string | undefined;
  let parts: string[] = [];
  let items: string[] = [];
  const flush = () => {
    if (key === undefined) return;
    const text = parts.join(' ').replace(/\s+/g, ' ').trim();
    fields[key] = items.length > 0 ? items : unquote(text);
    key = undefined;
  };
  for (const line of lines) {
    const match = /^([A-Za-z][\w-]*):(?:\s+(.*))?$/.exec(line);
    if (match) {
      flush();
      if (!LENIENT_KEYS.has(match[1]!)) continue;
      key = match[1]!;
      const first = (match[2] ?? '').trim();
      // A block scalar indicator (`>`, `|`, `>-`) starts a value on the next lines.
      parts = /^[>|][+-]?$/.test(first) ? [] : [first];
      items = [];
      continue;
    }
    if (key === undefined) continue;
    const item = /^\s*-\s+(.*)$/.exec(line);
    if (item && parts.join('').trim() === '') items.push(unquote(item[1]!.trim()));
    else if (line.trim() !== '') parts.push(line.trim());
  }
  flush();
  if (fields['disable-model-invocation'] === 'true') fields['disable-model-invocation'] = true;
  else if (fields['disable-model-invocation'] === 'false') fields['disable-model-invocation'] = false;
  return fields;
}

function unquote(text: string): string {
  if (text.length >= 2 && ((text.startsWith('"') && text.endsWith('"')) || (text.startsWith("'") && text.endsWith("'")))) return text.slice(1, -1);
  return text;
}
