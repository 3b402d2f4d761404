import { AutoMediaProcessor } from '../../../src/tools/media/autoMediaProcessor';
import { processingUnavailableMessage } from '../../../src/tools/media/mediaProcessor';
import { loadSharp, type SharpModule } from '../../../src/tools/media/sharpLoader';
import { quadrants } from './mediaImages';

const OPTIONS = { deadlineMs: 10_000, maxInputPixels: 100_000_000 };
const BUDGET = { maxEdgePx: 100, maxBytes: 1_000_000 };

describe('loading sharp', () => {
  test('require("sharp") loads on this platform, through the loader', () => {
    const loaded = loadSharp();
    expect(loaded.ok).toBe(true);
    if (loaded.ok) expect(loaded.sharp.versions.vips).toMatch(/^\d+\.\d+/);
  });

  test('not installed: the reason says how to install it', () => {
    const missing = Object.assign(new Error("Cannot find module 'sharp'\nRequire stack:\n- /x.js"), { code: 'MODULE_NOT_FOUND' });
    expect(
      loadSharp(() => {
        throw missing;
      }),
    ).toEqual({ ok: false, reason: 'it is not installed; install it with npm install sharp' });
  });

  test('a native binary that does not load: the first line of its error', () => {
    const broken = new Error('Could not load the "sharp" module using the linux-x64 runtime\nPossible solutions:\n- ...');
    expect(
      loadSharp(() => {
        throw broken;
      }),
    ).toEqual({ ok: false, reason: 'Could not load the "sharp" module using the linux-x64 runtime' });
    expect(loadSharp(() => ({ notSharp: true }))).toEqual({ ok: false, reason: 'the module that loaded is not sharp' });
  });

  test('the default processor falls back to the pass-through with the reason, loading once', async () => {
    let loads = 0;
    const processor = new AutoMediaProcessor(() => {
      loads++;
      return { ok: false, reason: 'simulated' };
    });
    const smallBytes = await quadrants(40, 20).png().toBuffer();
    const small = { size: smallBytes.length, bytes: smallBytes };
    const bigBytes = await quadrants(400, 200).png().toBuffer();
    const big = { size: bigBytes.length, bytes: bigBytes };
    expect(processor.engine()).toEqual({ name: 'pass-through', unavailableReason: 'simulated' });
    const probe = await processor.probe(small, 'png', OPTIONS);
    expect(probe).toEqual({ format: 'png', width: 40, height: 20 });
    expect(await processor.fit(small, probe, BUDGET, OPTIONS)).toEqual({ bytes: smallBytes, mimeType: 'image/png', width: 40, height: 20, unchanged: true });
    await expect(processor.fit(big, await processor.probe(big, 'png', OPTIONS), BUDGET, OPTIONS)).rejects.toThrow(processingUnavailableMessage('simulated'));
    expect(loads).toBe(1);
  });

  test('with sharp, the default processor converts', async () => {
    const processor = new AutoMediaProcessor();
    const bytes = await quadrants(400, 200).png().toBuffer();
    const big = { size: bytes.length, bytes };
    const fitted = await processor.fit(big, await processor.probe(big, 'png', OPTIONS), BUDGET, OPTIONS);
    expect(processor.engine()).toEqual({ name: 'sharp' });
    expect([fitted.width, fitted.height, fitted.mimeType, fitted.unchanged]).toEqual([100, 50, 'image/png', false]);
  });

  test('an image over media.maxInputPixels is refused before it is decoded', async () => {
    const processor = new AutoMediaProcessor();
    const bytes = await quadrants(400, 200).png().toBuffer();
    const big = { size: bytes.length, bytes };
    const probe = await processor.probe(big, 'png', OPTIONS);
    await expect(processor.fit(big, probe, BUDGET, { ...OPTIONS, maxInputPixels: 10_000 })).rejects.toMatchObject({
      code: 'too-many-pixels',
      message: 'The image has 400×200 pixels, more than the 10000 that are decoded (media.maxInputPixels).',
    });
  });

  test('decoding runs under the deadline: a slow fit ends with a timeout error naming the key', async () => {
    // Real sharp whose every output is held back 500 ms, standing for a slow decode: a real big
    // image is no stand-in, a fast machine decodes one within any deadline a test can set.
    const processor = new AutoMediaProcessor(() => ({ ok: true, sharp: heldBack(500) }));
    const bytes = await quadrants(400, 200).png().toBuffer();
    const big = { size: bytes.length, bytes };
    const probe = await processor.probe(big, 'png', OPTIONS);
    await expect(processor.fit(big, probe, BUDGET, { ...OPTIONS, deadlineMs: 50 })).rejects.toMatchObject({
      code: 'timeout',
      message: 'Processing the image took longer than 50 ms (media.decodeTimeoutMs); nothing was sent.',
    });
    // The same processor without a deadline that short converts the image.
    expect(await processor.fit(big, probe, BUDGET, OPTIONS)).toMatchObject({ width: 100, height: 50, mimeType: 'image/png' });
  });
});

/** sharp, with every pipeline's `toBuffer` resolving `ms` after the real one. */
function heldBack(ms: number): SharpModule {
  const loaded = loadSharp();
  if (!loaded.ok) throw new Error(loaded.reason);
  const real = loaded.sharp;
  const wrapped = (...args: Parameters<SharpModule>) => {
    const image = real(...args);
    const toBuffer = image.toBuffer.bind(image) as (...a: unknown[]) => Promise<unknown>;
    Object.defineProperty(image, 'toBuffer', {
      value: async (...a: unknown[]) => {
        const out = await toBuffer(...a);
        await new Promise((resolve) => setTimeout(resolve, ms));
        return out;
      },
    });
    return image;
  };
  return Object.assign(wrapped, real) as unknown as SharpModule;
}
