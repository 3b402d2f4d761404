import type { Stats } from 'node:fs';
import * as fsp from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import * as nodePath from 'node:path';
import { inject, injectable } from 'inversify';
import { errorMessage, isErrnoException } from '../../../base/errors';
import { NotRegularFileError, type OpenedFile, openRegularFile, PathChangedError, pathChangedMessage, readBounded } from '../../../base/fs/openedFile';
import { knownBinaryType } from '../../../base/fs/fileSniff';
import { formatBytes, formatCount } from '../../../base/strings';
import { createServiceId } from '../../../di/serviceId';
import { registerAgentToolService } from '../../../di/toolContribution';
import { IConfigService } from '../../../services/config/config';
import { IAgentModelService } from '../../../services/model/model';
import { IAgentRuntimeService } from '../../../services/runtime/runtime';
import { IAgentWorkspaceService } from '../../../services/workspace/workspace';
import { ToolAccesses } from '../../../tool/accesses';
import { type ContentPart, type ExecutableTool, type JsonSchema, type ToolAnnotations, type ToolExecution, type ToolResult, toolError } from '../../../tool/contract';
import { loadDescriptionTemplate } from '../../../tool/descriptionTemplate';
import { toInputJsonSchema } from '../../../tool/inputSchema';
import { resolvePathAccess } from '../../../tool/pathAccess';
import { renderPrompt } from '../../../tool/renderPrompt';
import { literalRule, matchPathRule } from '../../../tool/ruleMatch';
import { escapeXmlAttribute, wrapUntrusted } from '../../../tool/untrustedContent';
import { type MediaConfig, mediaConfig } from '../mediaConfig';
import { type FittedImage, IMediaProcessor, type ImageInput, type ImageProbe, MediaProcessingError, type ProcessingOptions } from '../mediaProcessor';
import { conversionHint, IMAGE_MIME, type ImageFormat, MEDIA_SNIFF_BYTES, sniffMediaType } from '../mediaType';
import { IPdfTextExtractor, type PdfText, PdfTextError } from '../pdfText';
import { parsePages, READ_MEDIA_FILE_NAME, READ_MEDIA_FILE_SAMPLES, type ReadMediaFileInput, ReadMediaFileInputSchema } from './readMediaFile';

const PARAMETERS = toInputJsonSchema(ReadMediaFileInputSchema);
export const IMAGE_IN_CAPABILITY = 'image_in';
export const NO_VISION_SENTENCE = "The current model cannot see images; the file's facts are above.";

/** What one call reads: the canonical path, how it is shown, and the file's identity for the PDF cache. */
interface Target {
  readonly path: string;
  readonly shown: string;
  readonly inside: boolean;
}

@injectable()
export class ReadMediaFileTool implements ExecutableTool<ReadMediaFileInput> {
  readonly name = READ_MEDIA_FILE_NAME;
  readonly parameters: JsonSchema = PARAMETERS;
  readonly annotations: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
  /** The last PDF's text, so paging it with offset extracts nothing again. */
  private pdfCache: { key: string; text: PdfText } | undefined;

  constructor(
    @inject(IConfigService) private readonly config: IConfigService,
    @inject(IAgentWorkspaceService) private readonly workspace: IAgentWorkspaceService,
    @inject(IAgentRuntimeService) private readonly runtime: IAgentRuntimeService,
    @inject(IAgentModelService) private readonly model: IAgentModelService,
    @inject(IMediaProcessor) private readonly media: IMediaProcessor,
    @inject(IPdfTextExtractor) private readonly pdf: IPdfTextExtractor,
  ) {}

  get description(): string {
    const media = this.config.section(mediaConfig);
    return renderPrompt(loadDescriptionTemplate(__dirname, 'readMediaFile.md'), {
      MAX_EDGE_PX: formatCount(media.maxEdgePx),
      MAX_EDGE_PX_FULL: formatCount(media.maxEdgePxFull),
      MAX_IMAGE_BYTES: formatBytes(media.maxImageBytes),
      MAX_FILE_BYTES: formatBytes(media.maxFileBytes),
      PDF_MAX_CHARS: formatCount(media.pdfMaxChars),
    });
  }

  resolveExecution(input: ReadMediaFileInput): ToolExecution {
    // Throws PathSecurityError for secrets and escapes; the executor shows its message as it is.
    const path = resolvePathAccess(input.path, this.workspace.pathContext('read a file')).path;
    const inside = this.workspace.isInside(path);
    const shown = inside ? nodePath.relative(this.workspace.cwd, path) || '.' : path;
    const pages = parsePages(input.pages);
    if (!pages) return toolError(`pages "${input.pages}" is not a range: the first page must not be after the last (e.g. "2-5").`);
    if (input.region && (input.pages !== undefined || input.offset !== undefined)) {
      return toolError('region applies only to images, and pages and offset only to PDFs; give one or the other.');
    }
    const generation = this.runtime.generation;
    const detail = input.region ? `region ${regionText(input.region)}` : input.pages !== undefined ? `pages ${input.pages}` : undefined;
    return {
      accesses: [ToolAccesses.readFile(path)],
      display: { kind: 'file_io', operation: 'read', path, ...(detail ? { detail } : {}) },
      description: `Reading ${shown}${detail ? ` (${detail})` : ''}`,
      approvalRule: literalRule(READ_MEDIA_FILE_NAME, path),
      matchesRule: (ruleArgs) => matchPathRule(ruleArgs, path, { cwd: this.workspace.cwd, homeDir: this.workspace.homeDir }),
      execute: (ctx) => this.read(input, { path, shown, inside }, pages, generation, ctx.signal),
    };
  }

  private async read(input: ReadMediaFileInput, target: Target, pages: { first: number; last?: number }, generation: number, signal: AbortSignal): Promise<ToolResult> {
    if (this.runtime.generation !== generation) return toolError('The runtime changed after this call was prepared. Retry the tool call.');
    const options = this.config.section(mediaConfig);
    const shown = input.path;
    // Opened once, exactly at the resolved path (no symlink followed, no FIFO blocked on), as Read does.
    let opened: OpenedFile;
    try {
      opened = await openRegularFile(this.runtime.requireFs(), target.path);
    } catch (error) {
      return toolError(openErrorMessage(shown, error));
    }
    const { handle, stat } = opened;
    try {
      if (stat.size === 0) return toolError(`"${shown}" is empty.`);
      // Refused on the handle's size, before a byte is read.
      if (stat.size > options.maxFileBytes) {
        return toolError(`"${shown}" is ${formatBytes(stat.size)}; the limit is ${formatBytes(options.maxFileBytes)} (media.maxFileBytes).`);
      }
      const header = Buffer.alloc(Math.min(MEDIA_SNIFF_BYTES, stat.size));
      const { bytesRead } = await handle.read(header, 0, header.length, 0);
      const type = sniffMediaType(header.subarray(0, bytesRead), nodePath.basename(target.path));
      const whole = async (): Promise<Buffer | ToolResult> => {
        const read = await readBounded(handle, options.maxFileBytes, stat.size, signal);
        return read.more ? toolError(`"${shown}" grew past ${formatBytes(options.maxFileBytes)} while it was read (media.maxFileBytes).`) : read.bytes;
      };
      switch (type.kind) {
        case 'refused':
          return toolError(`"${shown}" is a ${type.name}; convert it first (${conversionHint(shown, type.ext)}).`);
        case 'unknown': {
          const known = knownBinaryType(header);
          return toolError(
            `"${shown}" is ${known ? `a ${known}` : 'not an image or a PDF'}; ReadMediaFile reads PNG, JPEG, GIF, WebP, TIFF, AVIF, HEIF and SVG images and PDFs. Use Read for text files.`,
          );
        }
        case 'pdf': {
          if (input.region) return toolError('region applies only to images.');
          if (input.full_resolution !== undefined) return toolError('full_resolution applies only to images.');
          const key = `${target.path}\0${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}\0${pages.first}-${pages.last ?? ''}`;
          const bytes = await whole();
          if (!Buffer.isBuffer(bytes)) return bytes;
          return await this.readPdf(bytes, target, pages, input.offset ?? 0, key, options, signal);
        }
        case 'image': {
          if (input.pages !== undefined) return toolError('pages applies only to PDFs.');
          if (input.offset !== undefined) return toolError('offset applies only to PDFs.');
          // sharp reads the opened file itself where it can (the handle stays open until it is done).
          const path = await descriptorPath(handle, stat);
          let image: ImageInput;
          if (path !== undefined) image = { size: stat.size, path };
          else {
            const bytes = await whole();
            if (!Buffer.isBuffer(bytes)) return bytes;
            image = { size: bytes.length, bytes };
          }
          return await this.readImage(image, type.format, input, target, options, signal);
        }
      }
    } catch (error) {
      if (signal.aborted) throw error;
      return toolError(`Reading "${shown}" failed: ${errorMessage(error)}`);
    } finally {
      await handle.close();
    }
  }

  private async readImage(image: ImageInput, format: ImageFormat, input: ReadMediaFileInput, target: Target, options: MediaConfig, signal: AbortSignal): Promise<ToolResult> {
    const shown = input.path;
    const processing: ProcessingOptions = { deadlineMs: options.decodeTimeoutMs, maxInputPixels: options.maxInputPixels, signal };
    let probe: ImageProbe;
    try {
      probe = await this.media.probe(image, format, processing);
    } catch (error) {
      return this.imageError(shown, format, error, signal);
    }
    const region = input.region;
    if (region && (region.x + region.width > probe.width || region.y + region.height > probe.height)) {
      return toolError(`region ${regionText(region)} lies outside the ${probe.width}×${probe.height} image.`);
    }
    const facts = { path: target.shown, mime: IMAGE_MIME[format], bytes: image.size, width: probe.width, height: probe.height };
    if (!this.model.has(IMAGE_IN_CAPABILITY)) {
      const lines = [`path: ${target.shown}`, `type: ${IMAGE_MIME[format]}`, `size: ${formatBytes(image.size)}`, `dimensions: ${probe.width}×${probe.height}`];
      if (probe.orientation !== undefined && probe.orientation !== 1) lines.push(`orientation: ${probe.orientation} (EXIF)`);
      if (probe.frames !== undefined) lines.push(`frames: ${probe.frames}`);
      return {
        output: `${lines.join('\n')}\n\n${NO_VISION_SENTENCE}`,
        structuredContent: { ...facts, ...(probe.orientation !== undefined ? { orientation: probe.orientation } : {}), sent: false },
      };
    }
    const budget = { maxEdgePx: input.full_resolution ? options.maxEdgePxFull : options.maxEdgePx, maxBytes: options.maxImageBytes };
    let fitted: FittedImage;
    try {
      fitted = region ? await this.media.crop(image, probe, region, budget, processing) : await this.media.fit(image, probe, budget, processing);
    } catch (error) {
      return this.imageError(shown, format, error, signal);
    }
    // The budget holds whatever processor is bound: an image over it would break every later request.
    if (fitted.bytes.length > budget.maxBytes || fitted.width > budget.maxEdgePx || fitted.height > budget.maxEdgePx) {
      return toolError(
        `The image came out at ${fitted.width}×${fitted.height} (${formatBytes(fitted.bytes.length)}), over the budget of ${budget.maxEdgePx} px and ${formatBytes(budget.maxBytes)}; nothing was sent.`,
      );
    }
    const output: ContentPart[] = [
      { type: 'text', text: `<image path="${escapeXmlAttribute(target.shown)}" mime="${fitted.mimeType}" width="${fitted.width}" height="${fitted.height}">` },
      { type: 'image', data: fitted.bytes.toString('base64'), mimeType: fitted.mimeType },
      { type: 'text', text: `</image>\n${statusLine(probe, image.size, fitted, region)}` },
    ];
    return {
      output,
      structuredContent: {
        ...facts,
        sent: true,
        sentMime: fitted.mimeType,
        sentBytes: fitted.bytes.length,
        sentWidth: fitted.width,
        sentHeight: fitted.height,
        unchanged: fitted.unchanged,
        ...(fitted.quality !== undefined ? { quality: fitted.quality } : {}),
        ...(region ? { region } : {}),
        processor: this.media.engine().name,
      },
    };
  }

  private imageError(shown: string, format: ImageFormat, error: unknown, signal: AbortSignal): ToolResult {
    if (signal.aborted) throw error;
    if (!(error instanceof MediaProcessingError)) return toolError(`"${shown}" cannot be read as an image: ${errorMessage(error)}`);
    // libvips decodes AV1-coded HEIF; an HEVC-coded one without a telling brand fails here.
    if (format === 'heif' && error.code === 'decode') return toolError(`"${shown}" is a HEIF image that cannot be decoded here (likely HEVC-coded); convert it first (${conversionHint(shown, 'heic')}).`);
    return toolError(`"${shown}": ${error.message}`);
  }

  private async readPdf(bytes: Buffer, target: Target, pages: { first: number; last?: number }, offset: number, key: string, options: MediaConfig, signal: AbortSignal): Promise<ToolResult> {
    let text: PdfText;
    if (this.pdfCache?.key === key) text = this.pdfCache.text;
    else {
      try {
        text = await this.pdf.extract(bytes, { first: pages.first, ...(pages.last !== undefined ? { last: pages.last } : {}), deadlineMs: options.pdfTimeoutMs, signal });
      } catch (error) {
        if (signal.aborted) throw error;
        return toolError(error instanceof PdfTextError ? error.message : `The PDF's text cannot be extracted: ${errorMessage(error)}`);
      }
      this.pdfCache = { key, text };
    }
    const first = text.pages[0]?.page ?? pages.first;
    const last = text.pages[text.pages.length - 1]?.page ?? first;
    const body = text.pages.map((p) => `--- page ${p.page} ---\n${p.text === '' ? '(no text on this page; it may be a scanned image)' : p.text}`).join('\n\n');
    if (offset > 0 && offset >= body.length) {
      return toolError(`offset ${offset} is past the end of the text of pages ${first}-${last} (${formatCount(body.length)} characters).`);
    }
    let end = Math.min(body.length, offset + options.pdfMaxChars);
    // Never split a surrogate pair.
    if (end < body.length && /[\uD800-\uDBFF]/.test(body[end - 1]!)) end--;
    const pageRange = first === last ? `${first}` : `${first}-${last}`;
    const header = [`pages: ${pageRange} of ${text.totalPages}`, `chars: ${offset}-${end} of ${body.length}`];
    if (end < body.length) header.push(`next_offset: ${end}`);
    else if (last < text.totalPages) header.push(`next_pages: ${last + 1}-${text.totalPages}`);
    const slice = body.slice(offset, end);
    return {
      output: `${header.join('\n')}\n\n${target.inside ? slice : wrapUntrusted(slice, target.path)}`,
      // The tool pages its own text (offset), so the executor's spill is not needed.
      spillExempt: true,
      structuredContent: {
        path: target.shown,
        totalPages: text.totalPages,
        firstPage: first,
        lastPage: last,
        offset,
        end,
        totalChars: body.length,
        ...(end < body.length ? { nextOffset: end } : {}),
      },
    };
  }
}

function regionText(region: { x: number; y: number; width: number; height: number }): string {
  return `${region.x},${region.y},${region.width},${region.height}`;
}

function statusLine(probe: ImageProbe, originalBytes: number, fitted: FittedImage, region: ReadMediaFileInput['region']): string {
  const original = `${probe.width}×${probe.height} (${formatBytes(originalBytes)})`;
  const source = region ? `Region ${regionText(region)} of the original ${original}` : `Original ${probe.format.toUpperCase()} ${original}`;
  const encoding = fitted.mimeType === 'image/jpeg' ? `JPEG${fitted.quality !== undefined ? ` q${fitted.quality}` : ''}` : fitted.mimeType.replace('image/', '').toUpperCase();
  const sent = fitted.unchanged ? 'sent as it is' : `sent ${fitted.width}×${fitted.height} ${encoding} (${formatBytes(fitted.bytes.length)})`;
  const frames = probe.frames !== undefined && !fitted.unchanged ? `; the first of its ${probe.frames} frames` : '';
  return `${source}, ${sent}${frames}. Coordinates in region are original pixels.`;
}

/**
 * `/proc/self/fd/N` of the opened file on Linux, when the handle is this process's descriptor for
 * that very file: a path another reader (sharp) opens without following anything swapped in since.
 */
async function descriptorPath(handle: FileHandle, stat: Stats): Promise<string | undefined> {
  if (process.platform !== 'linux') return undefined;
  let fd: unknown;
  try {
    fd = handle.fd;
  } catch {
    return undefined;
  }
  if (typeof fd !== 'number' || fd < 0) return undefined;
  const link = `/proc/self/fd/${fd}`;
  const viaLink = await fsp.stat(link).catch(() => undefined);
  return viaLink && viaLink.dev === stat.dev && viaLink.ino === stat.ino ? link : undefined;
}

function openErrorMessage(shown: string, error: unknown): string {
  if (error instanceof PathChangedError) return pathChangedMessage(shown, error.change, { action: 'read', nothing: 'nothing was read' });
  if (error instanceof NotRegularFileError) {
    if (error.kind === 'directory') return `"${shown}" is a directory, not a file. Use Glob to find images or PDFs in it.`;
    return `"${shown}" is not a regular file (it is a ${error.kind}); nothing was read.`;
  }
  const code = isErrnoException(error) ? error.code : undefined;
  if (code === 'ENOENT' || code === 'ENOTDIR') return `"${shown}" does not exist. Check the path, or use Glob to find the file by name.`;
  if (code === 'EACCES' || code === 'EPERM') return `"${shown}" cannot be read: permission denied.`;
  return `"${shown}" cannot be read: ${errorMessage(error)}`;
}

export const IReadMediaFileTool = createServiceId<ReadMediaFileTool>('tool.ReadMediaFile');
export const readMediaFileTool = registerAgentToolService(IReadMediaFileTool, ReadMediaFileTool, {
  name: READ_MEDIA_FILE_NAME,
  domain: 'media',
  requiredRuntimeCapabilities: ['fs'],
  samples: READ_MEDIA_FILE_SAMPLES,
});
