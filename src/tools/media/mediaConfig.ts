import { z } from 'zod';
import { defineConfigSection } from '../../di/configSection';

/** The media family's section of toolhost.json: ReadMediaFile's budgets and deadlines. */

export const DEFAULT_MEDIA_MAX_EDGE_PX = 2_000;
export const DEFAULT_MEDIA_MAX_EDGE_PX_FULL = 4_000;
/** 3.75 MiB raw is 5 MB as base64, the largest image the provider APIs take. */
export const DEFAULT_MEDIA_MAX_IMAGE_BYTES = 3_932_160;
export const DEFAULT_MEDIA_MAX_FILE_BYTES = 50 * 1024 * 1024;

export const MediaConfigSchema = z
  .strictObject({
    maxEdgePx: z
      .number()
      .int()
      .min(64)
      .max(16_000)
      .default(DEFAULT_MEDIA_MAX_EDGE_PX)
      .describe('Both edges of an image sent to the model are at most this many pixels (2000 is safe for requests with many images).'),
    maxEdgePxFull: z
      .number()
      .int()
      .min(64)
      .max(16_000)
      .default(DEFAULT_MEDIA_MAX_EDGE_PX_FULL)
      .describe('The edge limit when a call asks for full_resolution.'),
    maxImageBytes: z
      .number()
      .int()
      .min(16_384)
      .default(DEFAULT_MEDIA_MAX_IMAGE_BYTES)
      .describe('An image sent to the model has at most this many bytes (before base64).'),
    maxFileBytes: z
      .number()
      .int()
      .min(1)
      .default(DEFAULT_MEDIA_MAX_FILE_BYTES)
      .describe('Larger files are refused before any of their bytes are read.'),
    maxInputPixels: z
      .number()
      .int()
      .min(1)
      .default(100_000_000)
      .describe('Images with more pixels (width × height) are refused before they are decoded.'),
    decodeTimeoutMs: z.number().int().min(100).max(600_000).default(15_000).describe('An image decode and fit stops after this long.'),
    pdfTimeoutMs: z.number().int().min(100).max(600_000).default(20_000).describe("A PDF's text extraction stops after this long (its worker thread is ended)."),
    pdfMaxChars: z.number().int().min(1_000).max(200_000).default(30_000).describe('Characters of PDF text one call returns; the rest is paged with offset.'),
  })
  .refine((media) => media.maxEdgePx <= media.maxEdgePxFull, {
    message: 'media.maxEdgePx must not be larger than media.maxEdgePxFull.',
    path: ['maxEdgePx'],
  });

export const mediaConfig = defineConfigSection('media', MediaConfigSchema.prefault({}));
export type MediaConfig = z.output<typeof MediaConfigSchema>;
