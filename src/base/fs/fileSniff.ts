/** Telling text from binary, and which text encoding, from the first bytes of a file. */

export type SniffedEncoding = { kind: 'utf8' } | { kind: 'utf8bom' } | { kind: 'utf16le' } | { kind: 'utf16be' } | { kind: 'binary' };

const SIGNATURES: ReadonlyArray<{ name: string; bytes: readonly number[]; offset?: number }> = [
  { name: 'PNG image', bytes: [0x89, 0x50, 0x4e, 0x47] },
  { name: 'JPEG image', bytes: [0xff, 0xd8, 0xff] },
  { name: 'GIF image', bytes: [0x47, 0x49, 0x46, 0x38] },
  { name: 'WebP image', bytes: [0x57, 0x45, 0x42, 0x50], offset: 8 },
  { name: 'PDF document', bytes: [0x25, 0x50, 0x44, 0x46, 0x2d] },
  { name: 'ZIP archive', bytes: [0x50, 0x4b, 0x03, 0x04] },
  { name: 'gzip archive', bytes: [0x1f, 0x8b] },
  { name: 'ELF executable', bytes: [0x7f, 0x45, 0x4c, 0x46] },
  { name: 'WebAssembly module', bytes: [0x00, 0x61, 0x73, 0x6d] },
  { name: 'SQLite database', bytes: [0x53, 0x51, 0x4c, 0x69, 0x74, 0x65, 0x20, 0x66] },
];

function startsWith(header: Buffer, bytes: readonly number[], offset = 0): boolean {
  if (header.length < offset + bytes.length) return false;
  return bytes.every((b, i) => header[offset + i] === b);
}

export function knownBinaryType(header: Buffer): string | undefined {
  return SIGNATURES.find((s) => startsWith(header, s.bytes, s.offset))?.name;
}

export function detectEncoding(header: Buffer): SniffedEncoding {
  if (startsWith(header, [0xef, 0xbb, 0xbf])) return { kind: 'utf8bom' };
  if (startsWith(header, [0xff, 0xfe])) return { kind: 'utf16le' };
  if (startsWith(header, [0xfe, 0xff])) return { kind: 'utf16be' };
  if (knownBinaryType(header)) return { kind: 'binary' };
  if (!header.includes(0)) return { kind: 'utf8' };
  // UTF-16 without a byte-order mark: ASCII-range text has a zero in every other byte.
  const pairs = Math.floor(header.length / 2);
  if (pairs >= 4) {
    let zeroEven = 0;
    let zeroOdd = 0;
    for (let i = 0; i + 1 < header.length; i += 2) {
      if (header[i] === 0) zeroEven++;
      if (header[i + 1] === 0) zeroOdd++;
    }
    if (zeroOdd >= pairs * 0.9 && zeroEven === 0) return { kind: 'utf16le' };
    if (zeroEven >= pairs * 0.9 && zeroOdd === 0) return { kind: 'utf16be' };
  }
  return { kind: 'binary' };
}

export function describeBinary(shown: string, header: Buffer): string {
  const type = knownBinaryType(header);
  if (type) return `"${shown}" is a ${type}, not a text file. Read only reads text files.`;
  return `"${shown}" looks like a binary file (it contains NUL bytes). Read only reads text files; use Bash (e.g. \`file\` or \`xxd | head\`) to inspect it.`;
}
