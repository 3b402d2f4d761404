/** Text cut from a byte range of an output, and where it lies in it (byte offsets). */
export interface OutputText {
  readonly text: string;
  readonly start: number;
  readonly end: number;
}

/** The part of an output a store still holds: bytes [from, to), read on demand. */
export interface HeldOutput {
  readonly from: number;
  readonly to: number;
  /** Bytes [start, end) (within from–to), moved to UTF-8 character boundaries (see utf8Window). */
  read(start: number, end: number): Promise<OutputText>;
}

export type OutputSliceRequest = { readonly offset: number; readonly maxBytes: number } | { readonly tailLines?: number; readonly maxBytes: number };

/**
 * A slice of held output: from a byte offset forward (at most maxBytes), or its last lines / last
 * maxBytes. An offset before what is held starts where the held part starts.
 */
export async function sliceHeldOutput(held: HeldOutput, request: OutputSliceRequest): Promise<OutputText> {
  const maxBytes = Math.max(1, request.maxBytes);
  if ('offset' in request) {
    const start = Math.min(Math.max(held.from, request.offset), held.to);
    const end = Math.min(start + maxBytes, held.to);
    if (end <= start) return { text: '', start, end: start };
    return held.read(start, end);
  }
  const tailLines = 'tailLines' in request ? request.tailLines : undefined;
  if (held.to <= held.from) return { text: '', start: held.to, end: held.to };
  const slice = await held.read(Math.max(held.from, held.to - maxBytes), held.to);
  let text = slice.text;
  if (slice.start > 0 && tailLines !== undefined) {
    // The first line may be cut; drop it unless it is all there is.
    const firstBreak = text.indexOf('\n');
    if (firstBreak >= 0 && firstBreak < text.length - 1) text = text.slice(firstBreak + 1);
  }
  text = takeLastLines(text, tailLines);
  return { text, start: slice.end - Buffer.byteLength(text), end: slice.end };
}

/** The last `lines` lines of a text (all of it without `lines`); a final newline ends the last line. */
export function takeLastLines(text: string, lines: number | undefined): string {
  if (lines === undefined) return text;
  let end = text.length;
  if (text.endsWith('\n')) end--;
  let index = end;
  for (let n = 0; n < lines; n++) {
    const previous = text.lastIndexOf('\n', index - 1);
    if (previous < 0) return text;
    index = previous;
  }
  return text.slice(index + 1);
}

/**
 * Bytes [start, end) of `data` as text, moved to UTF-8 character boundaries: continuation bytes at
 * the start are skipped when `data` may begin inside a character (`cutBefore`, or start > 0), and
 * an end that cuts a character is extended to finish it (as far as `data` reaches).
 */
export function utf8Window(data: Buffer, start: number, end: number, cutBefore: boolean): OutputText {
  let s = start;
  if (cutBefore || s > 0) while (s < start + 3 && s < data.length && (data[s]! & 0xc0) === 0x80) s++;
  let e = Math.min(end, data.length);
  while (e < data.length && (data[e]! & 0xc0) === 0x80) e++;
  return { text: data.subarray(s, e).toString('utf8'), start: s, end: e };
}
