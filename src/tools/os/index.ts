// The os tool family's public surface (`toolhost/tools/os`): Read, Write, Glob, Grep and Bash.
export { createOsToolsFeature } from './osFeature';
export {
  readConfig,
  staleGuardConfig,
  bashConfig,
  globConfig,
  grepConfig,
  ReadConfigSchema,
  StaleGuardConfigSchema,
  BashConfigSchema,
  GlobConfigSchema,
  GrepConfigSchema,
  GREP_ENGINES,
  type ReadConfig,
  type StaleGuardConfig,
  type BashConfig,
  type GlobConfig,
  type GrepConfig,
  type GrepEngineSetting,
} from './osConfig';
export { IAgentFileStateService, type FileSnapshot, type CurrentFileState, type StaleWriteCheck } from './contract';
export { ReadTool, IReadTool, readTool } from './read/readTool';
export { ReadInputSchema, type ReadInput } from './read/read';
export { WriteTool, IWriteTool, writeTool } from './write/writeTool';
export { WriteInputSchema, type WriteInput } from './write/write';
export { BashTool, IBashTool, bashTool } from './bash/bashTool';
export { createBashInputSchema, type BashInput } from './bash/bash';
export { classifyCommand, isReadOnlySedScript, READ_ONLY_COMMANDS, type CommandClassification } from './bash/readOnlyCommand';
export { GlobTool, IGlobTool, globTool } from './glob/globTool';
export { GlobInputSchema, type GlobInput } from './glob/glob';
export { GrepTool, IGrepTool, grepTool } from './grep/grepTool';
export { GrepInputSchema, type GrepInput } from './grep/grep';
export { type GrepEngine, type GrepEngineName, GrepEngineError } from './grep/grepEngine';
export { IGrepEngineService, IRipgrepLocatorService, type GrepEngineChoice } from './grep/grepEngineSelection';
