// The media tool family's public surface (`toolhost/tools/media`): ReadMediaFile and its ports.
export { createMediaFeature } from './mediaFeature';
export { mediaConfig, MediaConfigSchema, type MediaConfig } from './mediaConfig';
export {
  IMediaProcessor,
  MediaProcessingError,
  type MediaProcessingErrorCode,
  type ImageProbe,
  type ImageBudget,
  type ImageRegion,
  type FittedImage,
  type ProcessingOptions,
} from './mediaProcessor';
export { type ImageFormat, SENDABLE_IMAGE_FORMATS } from './mediaType';
export { PassThroughMediaProcessor } from './passThroughMediaProcessor';
// The sharp adapter and its loader stay internal: their types are sharp's, an optional dependency.
export { IPdfTextExtractor, PdfTextError, type PdfTextErrorCode, type PdfText, type PdfTextRequest } from './pdfText';
export { WorkerPdfTextExtractor } from './workerPdfTextExtractor';
export { ReadMediaFileTool, IReadMediaFileTool, readMediaFileTool, NO_VISION_SENTENCE } from './readMediaFile/readMediaFileTool';
export { ReadMediaFileInputSchema, type ReadMediaFileInput, READ_MEDIA_FILE_NAME } from './readMediaFile/readMediaFile';
