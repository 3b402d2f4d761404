import { inject, injectable, preDestroy } from 'inversify';
import type { IDisposable } from '../../base/lifecycle';
import { createServiceId } from '../../di/serviceId';
import { IConfigService } from '../../services/config/config';
import { type AppEnvironment, IAppEnvironment } from '../../services/environment/environment';
import { ISubagentRunnerService } from '../../tools/agent/contract';
import { OpenAiChatSubagentRunner } from './openAiChatRunner';
import { type SubagentRunnerConfig, subagentRunnerConfig } from './subagentRunnerConfig';

/** The runner made from `subagentRunner` in toolhost.json. */
export function runnerFromConfig(config: SubagentRunnerConfig, env: AppEnvironment): OpenAiChatSubagentRunner {
  return new OpenAiChatSubagentRunner({
    baseUrl: config.baseUrl,
    model: config.model,
    env,
    requestTimeoutMs: config.requestTimeoutS * 1000,
    maxRetries: config.maxRetries,
    maxRetryWaitMs: config.maxRetryWaitS * 1000,
    ...(config.apiKeyEnv !== undefined ? { apiKeyEnv: config.apiKeyEnv } : {}),
    ...(config.maxTokens !== undefined ? { maxTokens: config.maxTokens } : {}),
    ...(config.headers !== undefined ? { headers: config.headers } : {}),
  });
}

/**
 * Keeps the App's runner in step with `subagentRunner` (App scope): set, it binds a runner made
 * from it; changed, it binds a new one; removed, it unbinds it (a runner a host bound since stays).
 */
export interface ISubagentRunnerConfigBinding {
  readonly current: OpenAiChatSubagentRunner | undefined;
}
export const ISubagentRunnerConfigBinding = createServiceId<ISubagentRunnerConfigBinding>('SubagentRunnerConfigBinding');

@injectable()
export class SubagentRunnerConfigBinding implements ISubagentRunnerConfigBinding {
  private applied = 'null';
  private binding: IDisposable | undefined;
  private runner: OpenAiChatSubagentRunner | undefined;
  private readonly listener: IDisposable;

  constructor(
    @inject(IConfigService) private readonly config: IConfigService,
    @inject(ISubagentRunnerService) private readonly runners: ISubagentRunnerService,
    @inject(IAppEnvironment) private readonly env: AppEnvironment,
  ) {
    this.apply();
    this.listener = config.onDidChange(() => this.apply());
  }

  get current(): OpenAiChatSubagentRunner | undefined {
    return this.runner;
  }

  private apply(): void {
    const section = this.config.section(subagentRunnerConfig);
    const key = JSON.stringify(section ?? null);
    if (key === this.applied) return;
    this.applied = key;
    this.binding?.dispose();
    this.binding = undefined;
    this.runner = section ? runnerFromConfig(section, this.env) : undefined;
    if (this.runner) this.binding = this.runners.bind(this.runner);
  }

  @preDestroy()
  dispose(): void {
    this.listener.dispose();
    this.binding?.dispose();
  }
}
