import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { errorMessage } from '../errors';
import { formatBytes, formatCount } from '../strings';
import type { OutputStreamName } from './shellProcess';

const FILE_BUFFER_BYTES = 1024 * 1024;

export interface OutputCaptureOptions {
  /** Characters kept from the start of the output. */
  readonly headChars: number;
  /** Characters kept from the end of the output. */
  readonly tailChars: number;
  /** Where the full output is written (raw bytes, in arrival order). */
  readonly filePath: string;
  /**
   * `always`: the file is created at once (background tasks). `overflow`: only once the output
   * no longer fits in head + tail; a file that turns out not to be needed is removed.
   */
  readonly fileMode: 'always' | 'overflow';
  /** The file stops growing here; later output is still counted and kept in the tail. */
  readonly fileMaxBytes: number;
  /** Called with true when the file cannot keep up (pause the producer), false to resume. */
  readonly onBackpressure?: (paused: boolean) => void;
}

export interface RenderedOutput {
  readonly text: string;
  /** Characters left out between head and tail (0 when the output is complete). */
  readonly omittedChars: number;
}

/**
 * Output of a process, bounded in memory: the first `headChars` and the last `tailChars`
 * characters, while the full bytes go to a file. stdout and stderr are decoded separately (a
 * multi-byte character split between chunks stays whole) and kept in arrival order.
 */
export class OutputCapture {
  private readonly decoders: Record<OutputStreamName, StringDecoder> = {
    stdout: new StringDecoder('utf8'),
    stderr: new StringDecoder('utf8'),
  };
  private head = '';
  private tailParts: string[] = [];
  private tailLength = 0;
  private pending: Buffer[] | undefined = [];
  private file: fs.WriteStream | undefined;
  private fileOpened = false;
  private waitingForDrain = false;
  private fileWritten = 0;
  private closed = false;
  /** Total bytes received. */
  totalBytes = 0;
  /** Total characters decoded. */
  totalChars = 0;
  /** The file reached fileMaxBytes and later output was not written to it. */
  fileCapped = false;
  /** Why the file could not be written, if it could not. */
  fileError: string | undefined;

  constructor(private readonly options: OutputCaptureOptions) {
    if (options.fileMode === 'always') this.openFile();
  }

  /** Records a chunk; returns its decoded text (for progress updates). */
  write(chunk: Buffer, stream: OutputStreamName): string {
    this.totalBytes += chunk.length;
    this.toFile(chunk);
    const text = this.decoders[stream].write(chunk);
    this.addText(text);
    return text;
  }

  /** Flushes the decoders (a truncated character at the very end becomes U+FFFD). */
  private flushDecoders(): void {
    for (const decoder of Object.values(this.decoders)) this.addText(decoder.end());
  }

  private addText(text: string): void {
    if (text.length === 0) return;
    this.totalChars += text.length;
    let rest = text;
    if (this.head.length < this.options.headChars) {
      const take = this.options.headChars - this.head.length;
      this.head += rest.slice(0, take);
      rest = rest.slice(take);
      if (rest.length === 0) return;
    }
    this.tailParts.push(rest);
    this.tailLength += rest.length;
    while (this.tailParts.length > 1 && this.tailLength - this.tailParts[0]!.length >= this.options.tailChars) {
      this.tailLength -= this.tailParts.shift()!.length;
    }
  }

  /** Whether characters were left out between head and tail. */
  get cut(): boolean {
    return this.totalChars > this.options.headChars + this.options.tailChars;
  }

  /** Whether the file holds the output (it exists and was written without error). */
  get hasFile(): boolean {
    return this.fileOpened && this.fileError === undefined;
  }

  get filePath(): string {
    return this.options.filePath;
  }

  /** Bytes handed to the file so far. */
  get fileBytes(): number {
    return this.fileWritten;
  }

  /** Bytes the file holds on disk now (what a reader can read). */
  get flushedFileBytes(): number {
    return this.file ? this.file.bytesWritten : 0;
  }

  /** The last `chars` characters kept in memory. */
  tail(chars: number): string {
    const kept = this.tailParts.join('');
    const complete = this.totalChars === this.head.length + kept.length;
    return (complete ? this.head + kept : kept).slice(-chars);
  }

  /** Head and tail, with a marker where characters were left out; cut at line breaks when one is near. */
  render(): RenderedOutput {
    const tail = this.tailParts.join('');
    if (!this.cut) return { text: this.head + tail, omittedChars: 0 };
    let head = this.head;
    const lastBreak = head.lastIndexOf('\n');
    // Cut at a line break when one is near (within a tenth of the kept size, at most 2,000 characters).
    if (lastBreak >= 0 && head.length - lastBreak < Math.min(2000, this.options.headChars / 10)) head = head.slice(0, lastBreak + 1);
    let end = tail.slice(-this.options.tailChars);
    const firstBreak = end.indexOf('\n');
    if (firstBreak >= 0 && firstBreak < Math.min(2000, this.options.tailChars / 10)) end = end.slice(firstBreak + 1);
    const omitted = this.totalChars - head.length - end.length;
    const marker = `${head.endsWith('\n') ? '' : '\n'}[... ${formatCount(omitted)} characters omitted ...]\n`;
    return { text: head + marker + end, omittedChars: omitted };
  }

  /** Flushes and closes the file. With `keepFile: false` (or an overflow file not needed) it is removed. */
  async close(options: { keepFile?: boolean } = {}): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.flushDecoders();
    this.pending = undefined;
    const file = this.file;
    if (!file) return;
    await new Promise<void>((resolve) => {
      if (file.destroyed || file.closed) return resolve();
      file.end(() => resolve());
      file.once('error', () => resolve());
    });
    const unneeded = this.options.fileMode === 'overflow' && !this.cut;
    if (options.keepFile === false || unneeded) {
      await fs.promises.unlink(this.options.filePath).catch(() => undefined);
      this.fileOpened = false;
    }
  }

  private openFile(): void {
    if (this.fileOpened) return;
    this.fileOpened = true;
    try {
      fs.mkdirSync(nodePath.dirname(this.options.filePath), { recursive: true });
    } catch (error) {
      this.fileError = errorMessage(error);
      return;
    }
    // A 1 MiB buffer: with the default 16 KiB every 64 KiB pipe read would pause the producer.
    const file = fs.createWriteStream(this.options.filePath, { flags: 'w', highWaterMark: FILE_BUFFER_BYTES });
    file.on('error', (error) => {
      this.fileError ??= errorMessage(error);
      this.releaseBackpressure();
    });
    this.file = file;
  }

  private toFile(chunk: Buffer): void {
    if (this.fileError !== undefined || this.fileCapped || this.closed) return;
    if (!this.file) {
      if (this.pending === undefined) return;
      this.pending.push(chunk);
      if (this.totalBytes <= this.options.headChars + this.options.tailChars) return;
      const pending = this.pending;
      this.pending = undefined;
      this.openFile();
      for (const part of pending) this.appendToFile(part);
      return;
    }
    this.appendToFile(chunk);
  }

  private appendToFile(chunk: Buffer): void {
    const file = this.file;
    if (!file || this.fileError !== undefined || this.fileCapped) return;
    let data = chunk;
    const room = this.options.fileMaxBytes - this.fileWritten;
    if (data.length > room) {
      data = data.subarray(0, Math.max(0, room));
      this.fileCapped = true;
    }
    if (data.length === 0) return;
    this.fileWritten += data.length;
    if (!file.write(data) && !this.waitingForDrain) {
      this.waitingForDrain = true;
      this.options.onBackpressure?.(true);
      file.once('drain', () => this.releaseBackpressure());
    }
  }

  private releaseBackpressure(): void {
    if (!this.waitingForDrain) return;
    this.waitingForDrain = false;
    this.options.onBackpressure?.(false);
  }
}

/** A one-line description of where the full output is, for results. */
export function describeOutputFile(capture: OutputCapture): string | undefined {
  if (capture.fileError !== undefined) return `The full output could not be saved: ${capture.fileError}.`;
  if (!capture.hasFile) return undefined;
  const capped = capture.fileCapped ? ` (only its first ${formatBytes(capture.fileBytes)}: the file stops at that size)` : '';
  return `Full output (${formatBytes(capture.totalBytes)}) saved to ${capture.filePath}${capped}.`;
}
