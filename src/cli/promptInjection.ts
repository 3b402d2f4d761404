import type { Container } from 'inversify';
import { IAgentPromptInjection, type PromptInjectionRequest, type PromptInjectionResult } from '../services/promptInjection/promptInjection';
import type { CliErrorStream } from './interactions';

/**
 * The CLI's IAgentPromptInjection: `toolhost run` has no model to hand a prompt to, so a cron fire
 * (or any other injected prompt) is printed on stderr and answered `dropped`.
 */
export class PrintingPromptInjection implements IAgentPromptInjection {
  constructor(
    private readonly stderr: CliErrorStream,
    /** A JSON line beside `run --json`'s events instead of text. */
    private readonly json = false,
  ) {}

  enqueue(request: PromptInjectionRequest): PromptInjectionResult {
    this.stderr.write(
      this.json
        ? JSON.stringify({ event: 'prompt_dropped', origin: request.origin, key: request.key, text: request.text }) + '\n'
        : `[${request.origin} ${request.key}] not delivered (toolhost run has no model to deliver to):\n${request.text}\n`,
    );
    return 'dropped';
  }

  /** Binds one in an agent container (run and tools, so `tools` lists what `run` offers). */
  static bindTo(container: Container, stderr: CliErrorStream, json = false): void {
    container.rebind(IAgentPromptInjection).toConstantValue(new PrintingPromptInjection(stderr, json));
  }
}
