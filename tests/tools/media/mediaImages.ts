import sharp from 'sharp';

export const RED = [255, 0, 0] as const;
export const GREEN = [0, 255, 0] as const;
export const BLUE = [0, 0, 255] as const;
export const WHITE = [255, 255, 255] as const;

/** Raw RGB pixels: top-left red, top-right green, bottom-left blue, bottom-right white. */
export function quadrantPixels(width: number, height: number): Buffer {
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const colour = y < height / 2 ? (x < width / 2 ? RED : GREEN) : x < width / 2 ? BLUE : WHITE;
      data.set(colour, (y * width + x) * 3);
    }
  }
  return data;
}

export function quadrants(width: number, height: number): sharp.Sharp {
  return sharp(quadrantPixels(width, height), { raw: { width, height, channels: 3 } });
}

/** Random pixels (from a fixed seed): they compress badly, so the files are large. */
export function noise(width: number, height: number, seed = 1): sharp.Sharp {
  const data = Buffer.alloc(width * height * 3);
  let state = seed;
  for (let i = 0; i < data.length; i++) {
    state = (state * 1103515245 + 12345) >>> 0;
    data[i] = state >>> 24;
  }
  return sharp(data, { raw: { width, height, channels: 3 } });
}

/** The decoded pixels of an image: its size and the RGB at (x, y). */
export async function pixels(bytes: Buffer): Promise<{ width: number; height: number; at(x: number, y: number): number[] }> {
  const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, at: (x, y) => [...data.subarray((y * info.width + x) * 3, (y * info.width + x) * 3 + 3)] };
}

/** Each channel within `tolerance` of the colour (JPEG is lossy). */
export function near(actual: readonly number[], expected: readonly number[], tolerance = 24): boolean {
  return actual.length === expected.length && actual.every((v, i) => Math.abs(v - expected[i]!) <= tolerance);
}
