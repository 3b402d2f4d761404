/** Text for an XML-like attribute value: `&`, `<`, `>`, `"` and `'` escaped. */
export function escapeXmlAttribute(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);
}

/**
 * Third-party content (a web page, a PDF from outside the workspace) marked as such for the
 * model: `<untrusted_content source="…">…</untrusted_content>`. A closing tag inside the content
 * is escaped, so the content cannot end the wrapper early and pose as instructions.
 */
export function wrapUntrusted(content: string, source: string): string {
  const body = content.replace(/<\/(untrusted_content)/gi, '&lt;/$1');
  return `<untrusted_content source="${escapeXmlAttribute(source)}">\n${body}\n</untrusted_content>`;
}
