/** A fetched and converted document, as FetchURL pages it. */
export interface FetchedDocument {
  /** The URL that answered (after redirects). */
  readonly url: string;
  readonly status: number;
  readonly contentType: string;
  readonly title?: string;
  /** How the text was made: `main content (Readability)`, `full page`, `raw`, `as received`. */
  readonly extracted: string;
  readonly text: string;
  readonly warnings: readonly string[];
}

export const DOCUMENT_CACHE_TTL_MS = 15 * 60 * 1000;
export const DOCUMENT_CACHE_MAX_CHARS = 25 * 1024 * 1024;

/**
 * Converted documents by (format, URL) for 15 minutes, least recently used first out past 25 M
 * characters (about 50 MB), so paging with `offset` fetches and converts nothing again.
 */
export class DocumentCache {
  private readonly entries = new Map<string, { readonly document: FetchedDocument; readonly expires: number }>();
  private chars = 0;

  constructor(
    private readonly now: () => number = Date.now,
    private readonly maxChars = DOCUMENT_CACHE_MAX_CHARS,
    private readonly ttlMs = DOCUMENT_CACHE_TTL_MS,
  ) {}

  get(key: string): FetchedDocument | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expires <= this.now()) {
      this.chars -= entry.document.text.length;
      return undefined;
    }
    // Most recently used last.
    this.entries.set(key, entry);
    return entry.document;
  }

  set(key: string, document: FetchedDocument): void {
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.chars -= old.document.text.length;
    }
    if (document.text.length > this.maxChars) return;
    this.entries.set(key, { document, expires: this.now() + this.ttlMs });
    this.chars += document.text.length;
    for (const [oldest, entry] of this.entries) {
      if (this.chars <= this.maxChars) break;
      this.entries.delete(oldest);
      this.chars -= entry.document.text.length;
    }
  }

  get size(): number {
    return this.entries.size;
  }
}
