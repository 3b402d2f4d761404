import { z } from 'zod';

export const READ_MEDIA_FILE_NAME = 'ReadMediaFile';

export const ImageRegionSchema = z.object({
  x: z.number().int().min(0).describe('Left edge, in pixels of the original image.'),
  y: z.number().int().min(0).describe('Top edge, in pixels of the original image.'),
  width: z.number().int().min(1).describe('Width in original pixels.'),
  height: z.number().int().min(1).describe('Height in original pixels.'),
});

export const ReadMediaFileInputSchema = z.object({
  path: z
    .string()
    .describe(
      'Path of an image (PNG, JPEG, GIF, WebP, TIFF, AVIF, HEIF, SVG) or a PDF. Relative paths resolve against the working directory; a path outside it must be absolute. ' +
        'Text files are not supported: use Read.',
    ),
  region: ImageRegionSchema.optional().describe(
    'Images only: the part of the image to return, in pixels of the original image (the status line of an earlier call gives its size). Use it to look at details of a large image.',
  ),
  full_resolution: z.boolean().optional().describe('Images only: allow the larger edge limit given in the description (default false). Costs more tokens.'),
  pages: z
    .string()
    .regex(/^\s*[1-9]\d*\s*(-\s*[1-9]\d*\s*)?$/)
    .optional()
    .describe('PDFs only: one page ("3") or a range ("2-5"), 1-based. Default: from the first page.'),
  offset: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('PDFs only: a character offset into the text of the selected pages, to continue where an earlier call stopped (its next_offset).'),
});

export type ReadMediaFileInput = z.infer<typeof ReadMediaFileInputSchema>;

/** Sample inputs for the conformance suite (tests/tools/conformance.test.ts): valid, resolved without I/O. */
export const READ_MEDIA_FILE_SAMPLES: readonly ReadMediaFileInput[] = [
  { path: 'shots/a.png' },
  { path: 'shots/a.png', region: { x: 0, y: 0, width: 100, height: 50 }, full_resolution: true },
  { path: 'docs/spec.pdf', pages: '2-5', offset: 3000 },
];

/** A `pages` value as a range; undefined when it is not one (the schema's pattern passed, so only last < first). */
export function parsePages(pages: string | undefined): { first: number; last?: number } | undefined {
  if (pages === undefined) return { first: 1 };
  const [first, last] = pages.split('-').map((part) => Number.parseInt(part.trim(), 10)) as [number, number | undefined];
  if (last === undefined) return { first, last: first };
  return last >= first ? { first, last } : undefined;
}
