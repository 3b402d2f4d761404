import { createServiceId } from '../../di/serviceId';

/** Pages of a PDF as text: `first` to `last` (1-based, inclusive), clamped to the document. */
export interface PdfTextRequest {
  readonly first: number;
  /** Absent: to the last page. */
  readonly last?: number;
  /** The extraction is ended (its worker terminated) after this long. */
  readonly deadlineMs: number;
  readonly signal?: AbortSignal;
}

export interface PdfText {
  readonly totalPages: number;
  /** The requested pages that exist, in order. */
  readonly pages: readonly { readonly page: number; readonly text: string }[];
}

export type PdfTextErrorCode = 'encrypted' | 'invalid' | 'past-end' | 'timeout' | 'unavailable' | 'failed';

/** Why a PDF's text could not be extracted; `message` is written for the model. */
export class PdfTextError extends Error {
  override readonly name = 'PdfTextError';
  constructor(
    readonly code: PdfTextErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/**
 * PDF text by pages (App scope). The default runs unpdf (pdf.js) in a worker thread that is kept
 * warm between calls, dropped when idle and terminated at the deadline, since pdf.js can spin on
 * a hostile file. This port may later join IContentExtractor (`pdfToText`) beside the HTML
 * extraction of FetchURL. Throws PdfTextError.
 */
export interface IPdfTextExtractor {
  extract(bytes: Uint8Array, request: PdfTextRequest): Promise<PdfText>;
}
export const IPdfTextExtractor = createServiceId<IPdfTextExtractor>('PdfTextExtractor');
