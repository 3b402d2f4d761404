import type { IDisposable } from '../../base/lifecycle';
import type { IToolArgsValidatorService } from '../argsValidation/toolArgsValidator';
import type { IAgentToolRegistryService } from '../toolRegistry/toolRegistry';

/** About the longest one turn of precompiling holds the event loop (a single compile may take longer). */
export const PRECOMPILE_SLICE_MS = 20;
/**
 * How long the executor has had no batch before compiling starts. A model's reply takes longer
 * than this; a client that sends calls one after another (an MCP client, a script) does not leave
 * such a gap, and its calls are not held up by compiling the validators of tools it never calls.
 */
export const PRECOMPILE_IDLE_MS = 100;

/**
 * Compiles the argument validators of tools soon after they are registered, off the call path:
 * ajv's first compile in a process takes tens of milliseconds, which the first batch would
 * otherwise pay inside preflight, one call after another, before any of its calls starts. It
 * starts once the executor has had no batch for PRECOMPILE_IDLE_MS and runs in `setImmediate`
 * turns of about PRECOMPILE_SLICE_MS, after activation has returned, so activation is not
 * slowed (compiling at activation made creating an agent with 1,000 tools 6-10x slower,
 * bench/activation.bench.ts) and many tools do not hold the event loop for long. A call that
 * comes first compiles its validator itself (the validator caches it either way). While the agent's
 * executor runs a batch it waits (`pause`/`resume`): the batch's own tools are validated by then,
 * and compiling the others would take CPU from the calls (a fresh process's first Glob on a big
 * tree, where rg's threads want both cores, took about a fifth longer), instead of from the time
 * the model thinks between batches. (Compiling in every gap between calls instead cost a fresh
 * `toolhost mcp serve` answering 100 Reads in a row about 50 ms: the validators of all its tools,
 * each turn delaying the next request.)
 */
export class ValidatorPrecompiler implements IDisposable {
  private readonly pending = new Set<string>();
  private immediate: NodeJS.Immediate | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private disposed = false;
  /** Batches running now: compiling waits while there is one. */
  private paused = 0;

  constructor(
    private readonly registry: IAgentToolRegistryService,
    private readonly validator: IToolArgsValidatorService,
  ) {}

  add(names: readonly string[]): void {
    if (this.disposed) return;
    for (const name of names) this.pending.add(name);
    this.schedule();
  }

  /** A batch starts: compile nothing until every batch begun has ended (`resume`). */
  pause(): void {
    this.paused++;
    this.cancel();
  }

  resume(): void {
    if (this.paused > 0 && --this.paused === 0) this.schedule();
  }

  dispose(): void {
    this.disposed = true;
    this.pending.clear();
    this.cancel();
  }

  private cancel(): void {
    if (this.immediate) clearImmediate(this.immediate);
    this.immediate = undefined;
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  /** Waits for PRECOMPILE_IDLE_MS without a batch, then compiles. */
  private schedule(): void {
    if (this.idleTimer || this.immediate || this.pending.size === 0 || this.paused > 0 || this.disposed) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      this.compileNextTurn();
    }, PRECOMPILE_IDLE_MS);
    // Compiling ahead is no reason to keep a process alive that has nothing else to do.
    this.idleTimer.unref();
  }

  /** The next turn of compiling, while still idle. */
  private compileNextTurn(): void {
    if (this.immediate || this.pending.size === 0 || this.paused > 0 || this.disposed) return;
    this.immediate = setImmediate(() => this.compileSome());
    this.immediate.unref();
  }

  private compileSome(): void {
    this.immediate = undefined;
    const until = performance.now() + PRECOMPILE_SLICE_MS;
    for (const name of this.pending) {
      if (performance.now() > until) break;
      this.pending.delete(name);
      try {
        const registration = this.registry.get(name);
        // The error of a schema ajv cannot compile is cached too; the call reports it.
        if (registration) this.validator.check(registration.tool.parameters);
      } catch {
        // A tool whose schema cannot be read: its calls report that in preflight.
      }
    }
    this.compileNextTurn();
  }
}
