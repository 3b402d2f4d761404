/** A plain text table: columns padded to their widest cell, the last column left unpadded. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

/** The first line of a text, cut to `max` characters with an ellipsis. */
export function summaryLine(text: string, max: number): string {
  const first = text.split('\n', 1)[0]!.trim();
  return first.length > max ? first.slice(0, max - 1) + '…' : first;
}
