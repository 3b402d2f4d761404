import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { fileURLToPath } from 'node:url';

const templates = new Map<string, string>();

/**
 * A tool's `.md` description template, read once from beside its class (the build copies the
 * `.md` files into dist/ next to the compiled code). `directory` is a folder (`__dirname` in
 * CommonJS) or a module's `import.meta.url` (ES modules). A template kept in a string constant
 * needs neither: pass it to `renderPrompt` directly.
 */
export function loadDescriptionTemplate(directory: string | URL, fileName: string): string {
  const base = directory instanceof URL || directory.startsWith('file:') ? nodePath.dirname(fileURLToPath(directory)) : directory;
  const file = nodePath.join(base, fileName);
  let template = templates.get(file);
  if (template === undefined) {
    template = fs.readFileSync(file, 'utf8').trimEnd();
    templates.set(file, template);
  }
  return template;
}
