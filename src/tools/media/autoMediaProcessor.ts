import { injectable } from 'inversify';
import type { FittedImage, IMediaProcessor, ImageBudget, ImageInput, ImageProbe, ImageRegion, ProcessingOptions } from './mediaProcessor';
import type { ImageFormat } from './mediaType';
import { PassThroughMediaProcessor } from './passThroughMediaProcessor';
import { loadSharp, type SharpLoad } from './sharpLoader';
import { SharpMediaProcessor } from './sharpMediaProcessor';

/**
 * The default IMediaProcessor (App scope): sharp when `require('sharp')` works, else the
 * pass-through with the reason. Decided on the first image, so an App that reads none never
 * loads libvips.
 */
@injectable()
export class AutoMediaProcessor implements IMediaProcessor {
  private chosen: IMediaProcessor | undefined;

  constructor(private readonly load: () => SharpLoad = loadSharp) {}

  private get processor(): IMediaProcessor {
    if (!this.chosen) {
      const loaded = this.load();
      this.chosen = loaded.ok ? new SharpMediaProcessor(loaded.sharp) : new PassThroughMediaProcessor(loaded.reason);
    }
    return this.chosen;
  }

  engine() {
    return this.processor.engine();
  }

  probe(input: ImageInput, format: ImageFormat, options: ProcessingOptions): Promise<ImageProbe> {
    return this.processor.probe(input, format, options);
  }

  fit(input: ImageInput, probe: ImageProbe, budget: ImageBudget, options: ProcessingOptions): Promise<FittedImage> {
    return this.processor.fit(input, probe, budget, options);
  }

  crop(input: ImageInput, probe: ImageProbe, region: ImageRegion, budget: ImageBudget, options: ProcessingOptions): Promise<FittedImage> {
    return this.processor.crop(input, probe, region, budget, options);
  }
}
