import { errorMessage } from '../../base/errors';
import {
  type FittedImage,
  type IMediaProcessor,
  type ImageBudget,
  type ImageInput,
  type ImageProbe,
  inputBytes,
  type ImageRegion,
  MediaProcessingError,
  processingUnavailableMessage,
  type ProcessingOptions,
} from './mediaProcessor';
import { IMAGE_MIME, type ImageFormat, SENDABLE_IMAGE_FORMATS } from './mediaType';

/** The file's own bytes when a provider takes them as they are; `undefined` when they need processing. */
export async function asIsWithinBudget(input: ImageInput, probe: ImageProbe, budget: ImageBudget): Promise<FittedImage | undefined> {
  if (!SENDABLE_IMAGE_FORMATS.includes(probe.format)) return undefined;
  if (probe.width > budget.maxEdgePx || probe.height > budget.maxEdgePx || input.size > budget.maxBytes) return undefined;
  const bytes = await inputBytes(input);
  // The file changed size since it was opened: not what was probed.
  if (bytes.length > budget.maxBytes) return undefined;
  return { bytes, mimeType: IMAGE_MIME[probe.format], width: probe.width, height: probe.height, unchanged: true };
}

/** EXIF orientations 5–8 turn the image a quarter: the displayed width is the stored height. */
export function displayedSize(width: number, height: number, orientation: number | undefined): { width: number; height: number } {
  return orientation !== undefined && orientation >= 5 && orientation <= 8 ? { width: height, height: width } : { width, height };
}

/**
 * The fallback when sharp does not load: dimensions from the header (image-size), images within
 * the budget sent as they are, everything else refused with the reason.
 */
export class PassThroughMediaProcessor implements IMediaProcessor {
  constructor(private readonly unavailableReason?: string) {}

  engine(): { name: 'pass-through'; unavailableReason?: string } {
    return { name: 'pass-through', ...(this.unavailableReason !== undefined ? { unavailableReason: this.unavailableReason } : {}) };
  }

  async probe(input: ImageInput, format: ImageFormat): Promise<ImageProbe> {
    const bytes = await inputBytes(input);
    let size: ReturnType<typeof import('image-size').imageSize>;
    try {
      // Loaded on first use: most sessions never read an image.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { imageSize } = require('image-size') as typeof import('image-size');
      size = imageSize(bytes);
    } catch (error) {
      throw new MediaProcessingError('decode', `The ${format.toUpperCase()} header cannot be read: ${errorMessage(error)}`);
    }
    const shown = displayedSize(size.width, size.height, size.orientation);
    return {
      format,
      ...shown,
      ...(size.orientation !== undefined ? { orientation: size.orientation } : {}),
      ...(size.images && size.images.length > 1 ? { frames: size.images.length } : {}),
    };
  }

  async fit(input: ImageInput, probe: ImageProbe, budget: ImageBudget, _options: ProcessingOptions): Promise<FittedImage> {
    const asIs = await asIsWithinBudget(input, probe, budget);
    if (asIs) return asIs;
    throw new MediaProcessingError('unavailable', processingUnavailableMessage(this.unavailableReason));
  }

  crop(_input: ImageInput, _probe: ImageProbe, _region: ImageRegion, _budget: ImageBudget, _options: ProcessingOptions): Promise<FittedImage> {
    return Promise.reject(new MediaProcessingError('unavailable', processingUnavailableMessage(this.unavailableReason)));
  }
}
