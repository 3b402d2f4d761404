import type { Container } from 'inversify';
import { IAgentPromptInjection, type PromptInjectionRequest, type PromptInjectionResult } from '../services/promptInjection/promptInjection';
import type { CliErrorStream } from './interactions';

/**
 * The CLI's IAgentPromptInjection: `toolhost run` has no model to hand a prompt to, so a cron fire
 * (or any other injected prompt) is printed on stderr and answered `dropped`.
 */
export class PrintingPromptInjection implements IAgentPromptInjection {
  constructor(private readonly stderr: CliErrorStream) {}

  enqueue(request: PromptInjectionRequest): PromptInjectionResult {
    this.stderr.write(`[${request.origin} ${request.key}] not delivered (toolhost run has no model to deliver to):\n${request.text}\n`);
    return 'dropped';
  }

  /** Binds one in an agent container (run and tools, so `tools` lists what `run` offers). */
  static bindTo(container: Container, stderr: CliErrorStream): void {
    container.rebind(IAgentPromptInjection).toConstantValue(new PrintingPromptInjection(stderr));
  }
}
