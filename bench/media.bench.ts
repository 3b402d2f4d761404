import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import sharp from 'sharp';
import { benchDir, fmt, measureProcess, median, table } from './util';

/** A 4000×3000 photo-like image (smooth gradients with grain), made once per format and reused. */
async function bigImage(format: 'jpeg' | 'png'): Promise<string> {
  const file = nodePath.join(benchDir(), `media-4000x3000.${format === 'jpeg' ? 'jpg' : 'png'}`);
  if (fs.existsSync(file)) return file;
  const width = 4000;
  const height = 3000;
  const data = Buffer.alloc(width * height * 3);
  let state = 7;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      state = (state * 1103515245 + 12345) >>> 0;
      const grain = (state >>> 27) - 16;
      const at = (y * width + x) * 3;
      data[at] = Math.max(0, Math.min(255, ((x * 255) / width + grain) | 0));
      data[at + 1] = Math.max(0, Math.min(255, ((y * 255) / height + grain) | 0));
      data[at + 2] = Math.max(0, Math.min(255, (128 + 100 * Math.sin(x / 150) * Math.cos(y / 120) + grain) | 0));
    }
  }
  const image = sharp(data, { raw: { width, height, channels: 3 } });
  await (format === 'jpeg' ? image.jpeg({ quality: 92 }) : image.png({ compressionLevel: 6 })).toFile(file + '.tmp');
  fs.renameSync(file + '.tmp', file);
  return file;
}

type Fit = { ms: number; bytes: number; width: number; height: number };

/**
 * ReadMediaFile fitting a 4000×3000 image into the default budget (2000 px, JPEG), against sharp
 * doing the same resize and encode directly: warm and paired in one process, and once per fresh
 * process for the peak RSS (alternating tool and direct runs).
 */
export async function mediaBench(): Promise<void> {
  console.log('\n## ReadMediaFile: fitting a 4000×3000 image (sharp', sharp.versions.sharp + ', libvips', sharp.versions.vips + ')');
  const child = nodePath.join(__dirname, 'mediaChild.js');
  const rows: string[][] = [];
  const ratios: string[] = [];
  for (const format of ['jpeg', 'png'] as const) {
    const file = await bigImage(format);
    const size = fs.statSync(file).size;
    const pair = JSON.parse((await measureProcess(process.execPath, [child, file, 'pair'])).stdout) as { tool: number; direct: number };
    const tool: { fit: Fit; rss: number }[] = [];
    const direct: { fit: Fit; rss: number }[] = [];
    for (let i = 0; i < 5; i++) {
      for (const [mode, into] of (i % 2 === 0 ? [['tool', tool], ['direct', direct]] : [['direct', direct], ['tool', tool]]) as [string, typeof tool][]) {
        const run = await measureProcess(process.execPath, [child, file, mode]);
        into.push({ fit: JSON.parse(run.stdout) as Fit, rss: run.peakRssMb ?? NaN });
      }
    }
    const label = `${format.toUpperCase()} ${(size / 1024 / 1024).toFixed(1)} MB`;
    for (const [name, runs, warm] of [
      ['ReadMediaFile', tool, pair.tool],
      ['sharp resize+jpeg q85', direct, pair.direct],
    ] as const) {
      const sample = runs[0]!.fit;
      rows.push([`${label}: ${name}`, fmt(warm), fmt(median(runs.map((r) => r.fit.ms))), fmt(median(runs.map((r) => r.rss)), 1), `${sample.width}×${sample.height}`, String(sample.bytes)]);
    }
    ratios.push(`${label}: ReadMediaFile / sharp direct, warm: ${fmt(pair.tool / pair.direct)}x; first call of a process: ${fmt(median(tool.map((r) => r.fit.ms)) / median(direct.map((r) => r.fit.ms)))}x`);
    ratios.push(`${label}: ReadMediaFile peak RSS ${fmt(median(tool.map((r) => r.rss)), 1)} MB = ${fmt(median(tool.map((r) => r.rss)) / 150)} of the 150 MB bound`);
  }
  console.log(table(['case', 'warm ms', 'fresh-process ms', 'peak RSS MB', 'sent', 'bytes'], rows));
  for (const ratio of ratios) console.log(ratio);
  console.log('Aim: at most 2x sharp doing the same resize directly, and peak RSS under 150 MB.');
}
