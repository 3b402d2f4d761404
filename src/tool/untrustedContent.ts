import type { ToolResultMetadata } from './contract';

/** Text for an XML-like attribute value: `&`, `<`, `>`, `"` and `'` escaped. */
export function escapeXmlAttribute(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);
}

/**
 * Third-party content (a web page, search results, a PDF from outside the workspace) marked as
 * such for the model: `<untrusted_content source="…">…</untrusted_content>`. An opening or closing
 * tag inside the content is escaped, so the content can neither end the wrapper early nor fake a
 * new one, and pose as instructions.
 */
export function wrapUntrusted(content: string, source: string): string {
  const body = content.replace(/<(\/?)(untrusted_content)/gi, '&lt;$1$2');
  return `<untrusted_content source="${escapeXmlAttribute(source)}">\n${body}\n</untrusted_content>`;
}

/** The result metadata of a tool whose output carries third-party content. */
export const UNTRUSTED_METADATA: ToolResultMetadata = Object.freeze({ untrusted: true });
