import { errorMessage } from '../../base/errors';
import { withDeadline } from './deadline';
import {
  type FittedImage,
  type IMediaProcessor,
  type ImageBudget,
  type ImageInput,
  type ImageProbe,
  type ImageRegion,
  MediaProcessingError,
  type ProcessingOptions,
} from './mediaProcessor';
import type { ImageFormat } from './mediaType';
import { asIsWithinBudget } from './passThroughMediaProcessor';
import type { SharpModule } from './sharpLoader';

/** JPEG qualities tried in turn until the image fits the byte budget. */
export const JPEG_QUALITY_LADDER: readonly number[] = [85, 75, 65, 55, 45, 40];
/** Times the edge is shrunk further when even the lowest quality is over the byte budget. */
const SHRINK_ROUNDS = 4;
/** Lossless sources (screenshots, diagrams) try PNG first: JPEG blurs text. */
const LOSSLESS_SOURCES: readonly ImageFormat[] = ['png', 'gif', 'svg', 'tiff'];

/** sharp reads a path itself (libvips streams it), so a large file is not held in memory. */
function source(input: ImageInput): Buffer | string {
  if (input.bytes) return input.bytes;
  if (input.path !== undefined) return input.path;
  throw new MediaProcessingError('decode', 'The image input has neither bytes nor a path.');
}

interface RawImage {
  readonly data: Buffer;
  readonly width: number;
  readonly height: number;
  readonly channels: 1 | 2 | 3 | 4;
}

/** Decoding and fitting with sharp (libvips), on libuv's thread pool. */
export class SharpMediaProcessor implements IMediaProcessor {
  constructor(private readonly sharp: SharpModule) {}

  engine(): { name: 'sharp' } {
    return { name: 'sharp' };
  }

  async probe(input: ImageInput, format: ImageFormat, options: ProcessingOptions): Promise<ImageProbe> {
    const meta = await this.run(() => this.sharp(source(input), { limitInputPixels: false }).metadata(), options, 'probe');
    const width = meta.autoOrient?.width ?? meta.width;
    const height = meta.autoOrient?.height ?? meta.height;
    if (!width || !height) throw new MediaProcessingError('decode', `The ${format.toUpperCase()} file has no dimensions; it may be damaged.`);
    return {
      format,
      width,
      height,
      ...(meta.orientation !== undefined ? { orientation: meta.orientation } : {}),
      ...(meta.pages !== undefined && meta.pages > 1 ? { frames: meta.pages } : {}),
      hasAlpha: meta.hasAlpha === true,
    };
  }

  async fit(input: ImageInput, probe: ImageProbe, budget: ImageBudget, options: ProcessingOptions): Promise<FittedImage> {
    return (await asIsWithinBudget(input, probe, budget)) ?? this.convert(input, probe, undefined, budget, options);
  }

  crop(input: ImageInput, probe: ImageProbe, region: ImageRegion, budget: ImageBudget, options: ProcessingOptions): Promise<FittedImage> {
    return this.convert(input, probe, region, budget, options);
  }

  /**
   * One pipeline straight from the file's bytes first, as sharp is used directly; only when that
   * is over the byte budget, decoded and resized once to raw pixels and encoded down the JPEG
   * quality ladder, then smaller.
   */
  private async convert(input: ImageInput, probe: ImageProbe, region: ImageRegion | undefined, budget: ImageBudget, options: ProcessingOptions): Promise<FittedImage> {
    if (probe.width * probe.height > options.maxInputPixels) {
      throw new MediaProcessingError(
        'too-many-pixels',
        `The image has ${probe.width}×${probe.height} pixels, more than the ${options.maxInputPixels} that are decoded (media.maxInputPixels).`,
      );
    }
    const started = Date.now();
    const left = (): ProcessingOptions => ({ ...options, deadlineMs: Math.max(1, options.deadlineMs - (Date.now() - started)) });
    const source = region ?? { x: 0, y: 0, width: probe.width, height: probe.height };
    const scale = Math.min(1, budget.maxEdgePx / source.width, budget.maxEdgePx / source.height);
    // PNG for lossless sources and alpha, unless the source's own bytes per pixel say it cannot fit
    // (a photo saved as PNG): encoding a PNG that is then thrown away costs more than the resize.
    const pngBytesGuess = (input.size / (probe.width * probe.height)) * source.width * source.height * scale * scale;
    const png = (LOSSLESS_SOURCES.includes(probe.format) || probe.hasAlpha === true) && pngBytesGuess <= budget.maxBytes;
    const flatten = probe.hasAlpha === true;
    const first = await this.run(() => this.encode(this.decode(input, region, budget.maxEdgePx, options), png ? 'png' : JPEG_QUALITY_LADDER[0]!, flatten), options, 'decode');
    if (first.bytes.length <= budget.maxBytes) return first;

    let edge = budget.maxEdgePx;
    let raw = await this.run(() => this.resizeToRaw(input, region, edge, options), left(), 'decode');
    let smallestJpeg = png ? Infinity : first.bytes.length;
    for (let round = 0; round <= SHRINK_ROUNDS; round++) {
      if (round > 0) {
        // Scaled by the square root of the overshoot (bytes grow with the area), with a margin.
        const shrink = Math.min(0.9, Math.sqrt(budget.maxBytes / smallestJpeg) * 0.9);
        edge = Math.max(16, Math.floor(Math.max(raw.width, raw.height) * shrink));
        raw = await this.run(() => this.resizeToRaw(input, region, edge, options), left(), 'resize');
      }
      // Quality 85 at the full edge was the first attempt unless that was a PNG.
      const qualities = round === 0 && !png ? JPEG_QUALITY_LADDER.slice(1) : JPEG_QUALITY_LADDER;
      for (const quality of qualities) {
        const jpeg = await this.run(() => this.encode(this.fromRaw(raw), quality, raw.channels === 2 || raw.channels === 4), left(), 'encode');
        if (jpeg.bytes.length <= budget.maxBytes) return jpeg;
        smallestJpeg = jpeg.bytes.length;
      }
    }
    throw new MediaProcessingError('over-budget', `The image does not fit in ${budget.maxBytes} bytes even at ${raw.width}×${raw.height} and JPEG quality 40.`);
  }

  /** The decode, crop and resize steps of a pipeline from the file's bytes. */
  private decode(input: ImageInput, region: ImageRegion | undefined, edge: number, options: ProcessingOptions) {
    let image = this.sharp(source(input), { limitInputPixels: options.maxInputPixels, autoOrient: true, sequentialRead: true, animated: false }).timeout({
      seconds: Math.max(1, Math.ceil(options.deadlineMs / 1000)),
    });
    if (region) image = image.extract({ left: region.x, top: region.y, width: region.width, height: region.height });
    return image.resize({ width: edge, height: edge, fit: 'inside', withoutEnlargement: true });
  }

  private async encode(image: ReturnType<SharpModule>, target: 'png' | number, flatten: boolean): Promise<FittedImage> {
    const encoded = target === 'png' ? image.png({ compressionLevel: 6 }) : (flatten ? image.flatten({ background: '#ffffff' }) : image).jpeg({ quality: target });
    const { data, info } = await encoded.toBuffer({ resolveWithObject: true });
    return {
      bytes: data,
      mimeType: target === 'png' ? 'image/png' : 'image/jpeg',
      width: info.width,
      height: info.height,
      ...(target === 'png' ? {} : { quality: target }),
      unchanged: false,
    };
  }

  private async resizeToRaw(input: ImageInput, region: ImageRegion | undefined, edge: number, options: ProcessingOptions): Promise<RawImage> {
    const { data, info } = await this.decode(input, region, edge, options).raw().toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height, channels: info.channels };
  }

  private fromRaw(raw: RawImage) {
    return this.sharp(raw.data, { raw: { width: raw.width, height: raw.height, channels: raw.channels } });
  }

  private async run<T>(work: () => Promise<T>, options: ProcessingOptions, what: string): Promise<T> {
    try {
      return await withDeadline(
        work(),
        options.deadlineMs,
        () => new MediaProcessingError('timeout', `Processing the image took longer than ${options.deadlineMs} ms (media.decodeTimeoutMs); nothing was sent.`),
        options.signal,
      );
    } catch (error) {
      if (error instanceof MediaProcessingError || options.signal?.aborted) throw error;
      const message = errorMessage(error);
      if (/pixel limit/i.test(message)) throw new MediaProcessingError('too-many-pixels', `The image has more than ${options.maxInputPixels} pixels (media.maxInputPixels).`);
      if (/^timeout/i.test(message)) {
        throw new MediaProcessingError('timeout', `Processing the image took longer than ${options.deadlineMs} ms (media.decodeTimeoutMs); nothing was sent.`);
      }
      throw new MediaProcessingError('decode', `The image cannot be ${what === 'probe' ? 'read' : what === 'encode' ? 'encoded' : 'decoded'}: ${message}`);
    }
  }
}
