/**
 * What a file is, from its first bytes (the name only tells a compressed SVG from other gzip files):
 * the images ReadMediaFile sends or converts, PDF, and the formats it refuses with a hint.
 */

/** Image formats ReadMediaFile reads. PNG, JPEG, GIF and WebP go to the model as they are; the rest are converted. */
export type ImageFormat = 'png' | 'jpeg' | 'gif' | 'webp' | 'tiff' | 'avif' | 'heif' | 'svg';

/** Formats every provider API takes as they are. */
export const SENDABLE_IMAGE_FORMATS: readonly ImageFormat[] = ['png', 'jpeg', 'gif', 'webp'];

export const IMAGE_MIME: Readonly<Record<ImageFormat, string>> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  tiff: 'image/tiff',
  avif: 'image/avif',
  heif: 'image/heif',
  svg: 'image/svg+xml',
};

export type MediaType =
  | { readonly kind: 'image'; readonly format: ImageFormat }
  | { readonly kind: 'pdf' }
  /** A format ReadMediaFile does not read; `name` for the message, `ext` for the conversion command. */
  | { readonly kind: 'refused'; readonly name: string; readonly ext: string }
  | { readonly kind: 'unknown' };

/** Bytes of the header the sniffer looks at. */
export const MEDIA_SNIFF_BYTES = 4096;

function at(header: Uint8Array, offset: number, bytes: readonly number[]): boolean {
  if (header.length < offset + bytes.length) return false;
  return bytes.every((b, i) => header[offset + i] === b);
}

function ascii(header: Uint8Array, from: number, to: number): string {
  return Buffer.from(header.subarray(from, Math.min(to, header.length))).toString('latin1');
}

// ISO base media brands: AV1 (AVIF) that libvips decodes, HEVC (HEIC) that its prebuilt build does not.
const AVIF_BRANDS = new Set(['avif', 'avis']);
const HEVC_BRANDS = new Set(['heic', 'heix', 'hevc', 'hevx', 'heim', 'heis', 'hevm', 'hevs']);
const HEIF_BRANDS = new Set(['mif1', 'msf1', 'miaf']);

function sniffFtyp(header: Uint8Array): MediaType | undefined {
  if (!at(header, 4, [0x66, 0x74, 0x79, 0x70])) return undefined; // "ftyp"
  const boxSize = Math.min(((header[0]! << 24) >>> 0) + (header[1]! << 16) + (header[2]! << 8) + header[3]!, header.length);
  const major = ascii(header, 8, 12);
  const compatible: string[] = [];
  for (let offset = 16; offset + 4 <= boxSize; offset += 4) compatible.push(ascii(header, offset, offset + 4));
  const brands = [major, ...compatible];
  if (brands.some((b) => AVIF_BRANDS.has(b))) return { kind: 'image', format: 'avif' };
  if (brands.some((b) => HEVC_BRANDS.has(b))) return { kind: 'refused', name: 'HEIC image (HEVC-coded HEIF)', ext: 'heic' };
  if (HEIF_BRANDS.has(major)) return { kind: 'image', format: 'heif' };
  return undefined;
}

/** An SVG document: optional BOM, XML declaration, comments and doctype, then `<svg`. */
function looksLikeSvg(header: Uint8Array): boolean {
  const text = Buffer.from(header).toString('utf8').replace(/^\uFEFF/, '');
  const rest = text.replace(/^(\s|<\?xml[^>]*\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>]*>)*/i, '');
  return /^<svg[\s>]/i.test(rest);
}

export function sniffMediaType(header: Uint8Array, fileName: string): MediaType {
  if (at(header, 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return { kind: 'image', format: 'png' };
  if (at(header, 0, [0xff, 0xd8, 0xff])) return { kind: 'image', format: 'jpeg' };
  if (at(header, 0, [0x47, 0x49, 0x46, 0x38])) return { kind: 'image', format: 'gif' };
  if (at(header, 0, [0x52, 0x49, 0x46, 0x46]) && at(header, 8, [0x57, 0x45, 0x42, 0x50])) return { kind: 'image', format: 'webp' };
  if (at(header, 0, [0x49, 0x49, 0x2a, 0x00]) || at(header, 0, [0x4d, 0x4d, 0x00, 0x2a])) return { kind: 'image', format: 'tiff' };
  const ftyp = sniffFtyp(header);
  if (ftyp) return ftyp;
  // pdf.js finds a header within the first KiB, as readers do.
  if (ascii(header, 0, 1024).includes('%PDF-')) return { kind: 'pdf' };
  if (at(header, 0, [0x42, 0x4d])) return { kind: 'refused', name: 'BMP image', ext: 'bmp' };
  if (at(header, 0, [0x00, 0x00, 0x01, 0x00])) return { kind: 'refused', name: 'ICO icon', ext: 'ico' };
  if (at(header, 0, [0x38, 0x42, 0x50, 0x53])) return { kind: 'refused', name: 'Photoshop (PSD) image', ext: 'psd' };
  if (at(header, 0, [0xff, 0x0a]) || at(header, 0, [0x00, 0x00, 0x00, 0x0c, 0x4a, 0x58, 0x4c, 0x20])) return { kind: 'refused', name: 'JPEG XL image', ext: 'jxl' };
  if (looksLikeSvg(header)) return { kind: 'image', format: 'svg' };
  if (at(header, 0, [0x1f, 0x8b]) && /\.svgz$/i.test(fileName)) return { kind: 'refused', name: 'compressed SVG (svgz)', ext: 'svgz' };
  return { kind: 'unknown' };
}

/** What to run to turn a refused format into PNG. */
export function conversionHint(shown: string, ext: string): string {
  const png = shown.replace(/\.[^./\\]*$/, '') + '.png';
  if (ext === 'heic') return `sips -s format png ${shown} --out ${png} on macOS; heif-convert ${shown} ${png} on Linux`;
  if (ext === 'svgz') return `gunzip -c ${shown} > ${png.replace(/\.png$/, '.svg')}, then read the .svg`;
  return `magick ${shown} ${png}, or sips -s format png ${shown} --out ${png} on macOS`;
}
