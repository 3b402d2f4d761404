import { inject, injectable, optional, preDestroy } from 'inversify';
import { Emitter } from '../../base/event';
import { type IDisposable, toDisposable } from '../../base/lifecycle';
import { ISubagentRunner, type ISubagentRunnerService } from './contract';

/** The App's runner slot: the `ISubagentRunner` binding to start with, rebindable by the host at any time. */
@injectable()
export class SubagentRunnerService implements ISubagentRunnerService {
  private runner: ISubagentRunner | undefined;
  private readonly changed = new Emitter<ISubagentRunner | undefined>();
  readonly onDidChange = this.changed.event;

  constructor(@inject(ISubagentRunner) @optional() initial?: ISubagentRunner) {
    if (initial !== undefined) this.runner = checkedRunner(initial);
  }

  get current(): ISubagentRunner | undefined {
    return this.runner;
  }

  bind(runner: ISubagentRunner): IDisposable {
    this.runner = checkedRunner(runner);
    this.changed.fire(runner);
    return toDisposable(() => {
      if (this.runner !== runner) return;
      this.runner = undefined;
      this.changed.fire(undefined);
    });
  }

  @preDestroy()
  dispose(): void {
    this.changed.dispose();
  }
}

function checkedRunner(runner: ISubagentRunner): ISubagentRunner {
  // JavaScript hosts reach here without the types.
  if (typeof runner !== 'object' || runner === null || typeof runner.run !== 'function') {
    throw new TypeError('A subagent runner is an object with a run({child, prompt, profile, signal, onEvent}) method; see "Agent" in docs/tools.md.');
  }
  return runner;
}
