import { createHash, type Hash } from 'node:crypto';
import type { RuntimeFs } from './runtimeFs';

const CHUNK_BYTES = 1024 * 1024;

export function sha256Hex(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** A handle that can read at a position (a FileHandle, or a wrapper around one). */
export interface PositionalReader {
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
}

/**
 * Hashes a file from the reads someone else makes anyway: bytes read at the hash's current
 * position extend it, other reads are ignored, and `finish` reads whatever is still missing. A
 * forward Read of a whole file is hashed without a second pass over it.
 */
export class SequentialHash {
  private readonly hash: Hash = createHash('sha256');
  private next = 0;

  get position(): number {
    return this.next;
  }

  /** Offers bytes that were read at `position`. */
  feed(position: number, bytes: Buffer): void {
    const end = position + bytes.length;
    if (position > this.next || end <= this.next) return;
    this.hash.update(bytes.subarray(this.next - position));
    this.next = end;
  }

  /** Wraps a reader so every read it makes is offered to this hash. */
  wrap<R extends PositionalReader>(reader: R): PositionalReader {
    return {
      read: async (buffer, offset, length, position) => {
        const result = await reader.read(buffer, offset, length, position);
        this.feed(position, buffer.subarray(offset, offset + result.bytesRead));
        return result;
      },
    };
  }

  /** Reads the rest of the first `size` bytes and returns the hex digest. */
  async finish(reader: PositionalReader, size: number, signal?: AbortSignal): Promise<string> {
    if (this.next < size) {
      const buffer = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, size - this.next));
      while (this.next < size) {
        signal?.throwIfAborted();
        const { bytesRead } = await reader.read(buffer, 0, Math.min(buffer.length, size - this.next), this.next);
        if (bytesRead === 0) break;
        this.feed(this.next, buffer.subarray(0, bytesRead));
      }
    }
    return this.hash.digest('hex');
  }
}

/** The SHA-256 of a whole file, read in 1 MiB chunks. */
export async function sha256OfFile(fs: RuntimeFs, path: string, signal?: AbortSignal): Promise<string> {
  const handle = await fs.open(path, 'r');
  try {
    return await new SequentialHash().finish(handle, Number.MAX_SAFE_INTEGER, signal);
  } finally {
    await handle.close();
  }
}
