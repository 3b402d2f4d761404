/**
 * Third-party text for the model, marked so it is read as data, not as instructions: inside
 * `<untrusted_content source="…">`. A closing tag inside the text is escaped, so the text cannot
 * end the block early (as Gemini's wrapUntrusted does).
 */
export function wrapUntrusted(source: string, text: string): string {
  const escapedText = text.replace(/<(\/?)(untrusted_content)/gi, '&lt;$1$2');
  const escapedSource = source.replace(/[&"<>]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<untrusted_content source="${escapedSource}">\n${escapedText}\n</untrusted_content>`;
}

/** The result metadata of a tool whose output carries third-party content. */
export const UNTRUSTED_METADATA: Readonly<Record<string, unknown>> = Object.freeze({ untrusted: true });
