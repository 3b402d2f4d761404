import type { ToolCallResult } from '../../services/executor/toolExecutor';
import type { ISubagentRunner, SubagentRunRequest, SubagentRunResult, SubagentUsage } from './contract';
import { abortableDelay } from '../../base/delay';

/** One tool call of a script: `args` is sent as JSON text, as a model would. */
export interface ScriptedToolCall {
  readonly name: string;
  readonly args?: unknown;
  /** Default `s<turn>_<n>`. */
  readonly id?: string;
}

/** What a scripted child does: tool-call batches in order (one model turn each), then a final text. */
export interface SubagentScript {
  readonly batches?: readonly (readonly ScriptedToolCall[])[];
  /** The final answer; a function sees every batch's results. */
  readonly text?: string | ((results: readonly (readonly ToolCallResult[])[]) => string);
  /** Milliseconds of "model time" before each turn (batches and the final answer); aborting cuts it short. */
  readonly turnDelayMs?: number;
  /** End with status `failed` and this error after the batches (instead of the text). */
  readonly fail?: { readonly error: string; readonly retryAfterMs?: number };
  /** Reported as the run's usage. */
  readonly usage?: SubagentUsage;
}

/** A run the scripted runner played, for assertions. */
export interface ScriptedRun {
  readonly request: SubagentRunRequest;
  readonly results: (readonly ToolCallResult[])[];
  result?: SubagentRunResult;
}


/**
 * A runner without a model, for tests and hosts: it plays a script through the child's real
 * executor (validation, approval, locks and scheduling all apply) and answers with its text.
 * `script` may depend on the request (the prompt, the profile, a resume).
 */
export class ScriptedSubagentRunner implements ISubagentRunner {
  readonly runs: ScriptedRun[] = [];

  constructor(private readonly script: SubagentScript | ((request: SubagentRunRequest) => SubagentScript)) {}

  async run(request: SubagentRunRequest): Promise<SubagentRunResult> {
    const script = typeof this.script === 'function' ? this.script(request) : this.script;
    const record: ScriptedRun = { request, results: [] };
    this.runs.push(record);
    const result = await this.play(script, request, record);
    record.result = result;
    return result;
  }

  private async play(script: SubagentScript, request: SubagentRunRequest, record: ScriptedRun): Promise<SubagentRunResult> {
    const { child, signal, onEvent } = request;
    let turns = 0;
    const usage = script.usage ? { usage: script.usage } : {};
    const aborted = (): SubagentRunResult => ({ status: 'aborted', text: '', turns, error: 'The run was aborted.', ...usage });
    const turn = async (): Promise<boolean> => {
      turns++;
      onEvent({ type: 'turn', turn: turns });
      await abortableDelay(script.turnDelayMs ?? 0, signal);
      return !signal.aborted;
    };
    for (const batch of script.batches ?? []) {
      if (!(await turn())) return aborted();
      const calls = batch.map((call, n) => ({ id: call.id ?? `s${turns}_${n + 1}`, name: call.name, arguments: JSON.stringify(call.args ?? {}) }));
      record.results.push(await child.execute(calls, { signal }));
      if (signal.aborted) return aborted();
    }
    if (!(await turn())) return aborted();
    if (script.usage) onEvent({ type: 'usage', usage: script.usage });
    if (script.fail) {
      if (script.fail.retryAfterMs !== undefined) onEvent({ type: 'rate_limited', retryAfterMs: script.fail.retryAfterMs });
      return { status: 'failed', text: '', turns, error: script.fail.error, ...(script.fail.retryAfterMs !== undefined ? { retryAfterMs: script.fail.retryAfterMs } : {}), ...usage };
    }
    const text = typeof script.text === 'function' ? script.text(record.results) : (script.text ?? '');
    onEvent({ type: 'text', text });
    return { status: 'completed', text, turns, conversation: { prompt: request.prompt, turns }, ...usage };
  }
}
