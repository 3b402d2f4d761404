import { Feature } from '../scopes/feature';
import { IGrepEngineService, IRipgrepLocatorService } from '../services/grep/grepEngine';
import { GrepEngineService } from '../services/grep/grepEngineService';
import { RipgrepLocatorService } from '../services/grep/ripgrepLocatorService';
import { globTool } from './os/glob/globTool';
import { grepTool } from './os/grep/grepTool';
import { readTool } from './os/read/readTool';

/** The OS tools: files, search and shell. */
export function createOsToolsFeature(): Feature {
  return new Feature('os')
    .bindApp(
      ({ bind }) => {
        bind(IRipgrepLocatorService).to(RipgrepLocatorService).inSingletonScope();
        bind(IGrepEngineService).to(GrepEngineService).inSingletonScope();
      },
      [IRipgrepLocatorService, IGrepEngineService],
    )
    .contributeTool(readTool)
    .contributeTool(globTool)
    .contributeTool(grepTool);
}

/** Every builtin feature, fresh instances (a Feature belongs to one App at a time). */
export function builtinFeatures(): Feature[] {
  return [createOsToolsFeature()];
}
