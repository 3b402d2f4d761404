import { Feature } from '../../di/feature';
import { AutoMediaProcessor } from './autoMediaProcessor';
import { mediaConfig } from './mediaConfig';
import { IMediaProcessor } from './mediaProcessor';
import { IPdfTextExtractor } from './pdfText';
import { readMediaFileTool } from './readMediaFile/readMediaFileTool';
import { WorkerPdfTextExtractor } from './workerPdfTextExtractor';

/** ReadMediaFile: images for models that see them (sharp when it loads), PDFs as text on every model. */
export function createMediaFeature() {
  return new Feature('media')
    .contributeConfig(mediaConfig)
    .bindApp(
      ({ bind }) => {
        bind(IMediaProcessor).to(AutoMediaProcessor).inSingletonScope();
        bind(IPdfTextExtractor).to(WorkerPdfTextExtractor).inSingletonScope();
      },
      [IMediaProcessor, IPdfTextExtractor],
    )
    .contributeTool(readMediaFileTool);
}
