import { Feature } from '../../di/feature';
import { bashTool } from './bash/bashTool';
import { IAgentFileStateService, IFileWriteLocks } from './contract';
import { FileWriteLocks } from './fileState/fileWriteLocks';
import { bashConfig, globConfig, grepConfig, readConfig, staleGuardConfig } from './osConfig';
import { AgentFileStateService } from './fileState/agentFileStateService';
import { globTool } from './glob/globTool';
import { IGrepEngineService, IRipgrepLocatorService } from './grep/grepEngineSelection';
import { GrepEngineService } from './grep/grepEngineService';
import { grepTool } from './grep/grepTool';
import { RipgrepLocatorService } from './grep/ripgrepLocatorService';
import { readTool } from './read/readTool';
import { AgentTempFileSweep, IAgentTempFileSweep } from './write/tempFileSweep';
import { writeTool } from './write/writeTool';

/** The OS tools: Read, Write, Glob, Grep and Bash, the Grep engines and the file-state service. */
export function createOsToolsFeature() {
  return (
    new Feature('os')
      .contributeConfig(readConfig)
      .contributeConfig(staleGuardConfig)
      .contributeConfig(bashConfig)
      .contributeConfig(globConfig)
      .contributeConfig(grepConfig)
      .bindApp(
        ({ bind }) => {
          bind(IRipgrepLocatorService).to(RipgrepLocatorService).inSingletonScope();
          bind(IGrepEngineService).to(GrepEngineService).inSingletonScope();
          bind(IFileWriteLocks).to(FileWriteLocks).inSingletonScope();
        },
        [IRipgrepLocatorService, IGrepEngineService, IFileWriteLocks],
      )
      // The stale-write guard: Read records what the agent saw, Write and Edit check it.
      .bindAgent(({ bind }) => bind(IAgentFileStateService).to(AgentFileStateService).inSingletonScope())
      // What killed writes left in the workspace roots is removed when an agent starts.
      .bindAgent(({ bind }) => bind(IAgentTempFileSweep).to(AgentTempFileSweep).inSingletonScope())
      .startWithAgent(IAgentTempFileSweep)
      .contributeTool(readTool)
      .contributeTool(writeTool)
      .contributeTool(globTool)
      .contributeTool(grepTool)
      .contributeTool(bashTool)
  );
}
