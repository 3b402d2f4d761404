import { inject, injectable, preDestroy } from 'inversify';
import { Emitter } from '../../base/event';
import { isPathInside, type PathAccessContext, type PathAccessVerb } from '../../tool/pathAccess';
import { type AgentOptions, IAgentOptions, type IAgentWorkspaceService } from './workspace';

@injectable()
export class AgentWorkspaceService implements IAgentWorkspaceService {
  private disabled: readonly string[];
  private readonly disabledChanged = new Emitter<readonly string[]>();
  readonly onDidChangeDisabledTools = this.disabledChanged.event;

  constructor(@inject(IAgentOptions) private readonly options: AgentOptions) {
    this.disabled = [...options.disabledTools];
  }

  get agentId(): string {
    return this.options.id;
  }
  get cwd(): string {
    return this.options.cwd;
  }
  get additionalDirs(): readonly string[] {
    return this.options.additionalDirs;
  }
  get homeDir(): string {
    return this.options.homeDir;
  }
  get dataDir(): string {
    return this.options.dataDir;
  }
  get disabledTools(): readonly string[] {
    return this.disabled;
  }

  setDisabledTools(names: readonly string[]): void {
    this.disabled = [...new Set(names)];
    this.disabledChanged.fire(this.disabled);
  }

  pathContext(verb: PathAccessVerb, options: Pick<PathAccessContext, 'checkSensitive' | 'outside'> = {}): PathAccessContext {
    return { cwd: this.cwd, additionalDirs: this.additionalDirs, homeDir: this.homeDir, verb, ...options };
  }

  isInside(path: string): boolean {
    return [this.cwd, ...this.additionalDirs].some((root) => isPathInside(path, root));
  }

  @preDestroy()
  dispose(): void {
    this.disabledChanged.dispose();
  }
}
