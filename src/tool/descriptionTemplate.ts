import * as fs from 'node:fs';
import * as nodePath from 'node:path';

const templates = new Map<string, string>();

/**
 * A tool's `.md` description template, read once from beside its class (the build copies the
 * `.md` files into dist/ next to the compiled code).
 */
export function loadDescriptionTemplate(directory: string, fileName: string): string {
  const file = nodePath.join(directory, fileName);
  let template = templates.get(file);
  if (template === undefined) {
    template = fs.readFileSync(file, 'utf8').trimEnd();
    templates.set(file, template);
  }
  return template;
}
