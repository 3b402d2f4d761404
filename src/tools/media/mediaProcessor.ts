import * as fsp from 'node:fs/promises';
import { createServiceId } from '../../di/serviceId';
import type { ImageFormat } from './mediaType';

/** An image's facts, as displayed: width and height after its EXIF orientation. */
export interface ImageProbe {
  readonly format: ImageFormat;
  readonly width: number;
  readonly height: number;
  /** EXIF orientation 1–8, when the file has one. */
  readonly orientation?: number;
  /** Frames of an animated GIF or WebP (converting keeps the first). */
  readonly frames?: number;
  readonly hasAlpha?: boolean;
}

/**
 * An image file for a processor: its size, and its bytes in memory or a path the processor reads
 * it from (on Linux the tool passes `/proc/self/fd/N` of the file it opened, so a link swapped in
 * since is never followed, and a large file is not held in memory twice). At least one is given.
 */
export interface ImageInput {
  readonly size: number;
  readonly bytes?: Buffer;
  readonly path?: string;
}

/** The whole file of an input, from memory or read from its path. */
export async function inputBytes(input: ImageInput): Promise<Buffer> {
  if (input.bytes) return input.bytes;
  if (input.path === undefined) throw new MediaProcessingError('decode', 'The image input has neither bytes nor a path.');
  return fsp.readFile(input.path);
}

/** What an image sent to the model may be at most. */
export interface ImageBudget {
  readonly maxEdgePx: number;
  readonly maxBytes: number;
}

/** A rectangle in the image's pixels (as displayed). */
export interface ImageRegion {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export interface ProcessingOptions {
  /** The work stops (and is abandoned) after this long. */
  readonly deadlineMs: number;
  /** Images with more pixels are refused before they are decoded. */
  readonly maxInputPixels: number;
  readonly signal?: AbortSignal;
}

export interface FittedImage {
  readonly bytes: Buffer;
  readonly mimeType: string;
  readonly width: number;
  readonly height: number;
  /** The JPEG or WebP quality it was encoded with; absent for PNG and for the file unchanged. */
  readonly quality?: number;
  /** The file's own bytes, sent as they are. */
  readonly unchanged: boolean;
}

export type MediaProcessingErrorCode = 'unavailable' | 'timeout' | 'decode' | 'too-many-pixels' | 'over-budget';

/** Why an image could not be probed or fitted; `message` is written for the model. */
export class MediaProcessingError extends Error {
  override readonly name = 'MediaProcessingError';
  constructor(
    readonly code: MediaProcessingErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Image decoding and fitting (App scope). The default uses sharp when the optional package loads
 * and otherwise passes images through: it sends those already within the budget as they are and
 * refuses the rest (MediaProcessingError `unavailable`). Tests rebind it.
 */
export interface IMediaProcessor {
  /** `sharp`, or `pass-through` (with the reason sharp is not used). */
  engine(): { readonly name: 'sharp' | 'pass-through'; readonly unavailableReason?: string };
  /** Facts from the header (no full decode). Throws MediaProcessingError. */
  probe(input: ImageInput, format: ImageFormat, options: ProcessingOptions): Promise<ImageProbe>;
  /**
   * The image within the budget: the file's own bytes when it is a format every provider takes
   * and fits, else decoded, resized and re-encoded (PNG, or JPEG down a quality ladder). Never
   * over the budget: throws MediaProcessingError instead.
   */
  fit(input: ImageInput, probe: ImageProbe, budget: ImageBudget, options: ProcessingOptions): Promise<FittedImage>;
  /** `region` (within the probed image) cut out, then fitted like `fit`. */
  crop(input: ImageInput, probe: ImageProbe, region: ImageRegion, budget: ImageBudget, options: ProcessingOptions): Promise<FittedImage>;
}
export const IMediaProcessor = createServiceId<IMediaProcessor>('MediaProcessor');

/** The sentence for a processing step that needs sharp when it did not load. */
export function processingUnavailableMessage(reason: string | undefined): string {
  return `Image processing is unavailable (the optional sharp package did not load${reason ? `: ${reason}` : ''}); files within the budget are still sent as they are.`;
}
