import type { Worker } from 'node:worker_threads';
import { errorMessage } from '../../base/errors';
import { startWorkerThread } from '../../base/workerThreads';

/**
 * The `pattern`s of JSON schemas (and `patternProperties`), matched under a time limit.
 *
 * JavaScript regexes backtrack: a schema pattern such as `(a+)+$` (an MCP server's, say) runs for
 * minutes on a long argument, and ajv validates synchronously, so one tool call would freeze the
 * host. Each test therefore runs on a helper thread while the validating thread waits for it
 * (`Atomics.wait`, about 25 µs a test) up to the time limit of the validation. Past it the helper
 * is terminated (a new one serves the next test) and the validation throws
 * PatternTimeLimitError. Patterns are still compiled here, so a syntax error remains the schema's.
 */

/** Time all the pattern tests of one validation may take together. */
export const PATTERN_TIME_LIMIT_MS = 500;

/** Thrown out of a validation whose pattern tests ran out of time; the value was not accepted. */
export class PatternTimeLimitError extends Error {
  override readonly name = 'PatternTimeLimitError';

  constructor(
    readonly pattern: string,
    readonly limitMs: number,
  ) {
    super(
      `matching a value against the pattern "${pattern.length > 200 ? `${pattern.slice(0, 200)}…` : pattern}" of the schema took longer than ` +
        `${limitMs} ms, so the value was not accepted`,
    );
  }
}

// Result slots: 0 waiting, then one of these.
const MATCH = 1;
const NO_MATCH = 2;
const FAILED = 3;

/** The helper thread: answers `{source, flags, text}` in the shared slot. Plain JavaScript, run with `eval`. */
const HELPER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const cache = new Map();
parentPort.on('message', ({ slot, source, flags, text }) => {
  const state = new Int32Array(slot);
  let result = ${FAILED};
  try {
    const key = flags + '/' + source;
    let regex = cache.get(key);
    if (!regex) {
      if (cache.size >= 256) cache.clear();
      regex = new RegExp(source, flags);
      cache.set(key, regex);
    }
    result = regex.test(text) ? ${MATCH} : ${NO_MATCH};
  } catch {}
  Atomics.store(state, 0, result);
  Atomics.notify(state, 0);
});
`;

/** A compiled pattern, as ajv's `code.regExp` returns it. */
export interface BoundedPattern {
  test(text: string): boolean;
  /** `/source/flags`: ajv shares compiled patterns by it. */
  toString(): string;
}

/** The shape of ajv's `code.regExp` option (ajv does not export its type from the package root). */
export interface BoundedPatternEngine {
  (pattern: string, flags: string): BoundedPattern;
  readonly code: string;
}

interface Helper {
  readonly worker: Worker;
  readonly slot: Int32Array;
}

export class BoundedRegExps {
  private helper: Helper | undefined;
  private deadline: number | undefined;

  constructor(private readonly limitMs: number = PATTERN_TIME_LIMIT_MS) {}

  /** For ajv's `code.regExp` option. */
  readonly engine: BoundedPatternEngine = Object.assign((pattern: string, flags: string): BoundedPattern => this.compile(pattern, flags), {
    code: 'toolhost.BoundedRegExps',
  });

  /**
   * Runs one validation: all its pattern tests together get the time limit. Throws
   * PatternTimeLimitError when they run out of it.
   */
  within<T>(validate: () => T): T {
    if (this.deadline !== undefined) return validate();
    this.deadline = performance.now() + this.limitMs;
    try {
      return validate();
    } finally {
      this.deadline = undefined;
    }
  }

  /** Ends the helper thread (a later test starts a new one). */
  async close(): Promise<void> {
    const helper = this.helper;
    this.helper = undefined;
    if (helper) await helper.worker.terminate();
  }

  private compile(pattern: string, flags: string): BoundedPattern {
    // Compiling is linear in the pattern; only matching can backtrack.
    new RegExp(pattern, flags);
    return { test: (text: string) => this.test(pattern, flags, text), toString: () => `/${pattern}/${flags}` };
  }

  private test(pattern: string, flags: string, text: string): boolean {
    const remaining = this.deadline === undefined ? this.limitMs : this.deadline - performance.now();
    if (remaining <= 0) throw new PatternTimeLimitError(pattern, this.limitMs);
    const helper = this.startHelper();
    Atomics.store(helper.slot, 0, 0);
    helper.worker.postMessage({ slot: helper.slot.buffer, source: pattern, flags, text });
    if (Atomics.wait(helper.slot, 0, 0, remaining) === 'timed-out') {
      // The helper is stuck in this regex: end it; the next test gets a fresh one.
      this.helper = undefined;
      void helper.worker.terminate();
      throw new PatternTimeLimitError(pattern, this.limitMs);
    }
    const result = Atomics.load(helper.slot, 0);
    if (result === FAILED) throw new Error(`The pattern "${pattern}" could not be run.`);
    return result === MATCH;
  }

  private startHelper(): Helper {
    if (this.helper) return this.helper;
    let worker: Worker;
    try {
      worker = startWorkerThread(HELPER_SOURCE, { stdout: false, stderr: false });
    } catch (error) {
      throw new Error(`The pattern matcher could not start its thread: ${errorMessage(error)}`, { cause: error });
    }
    // Idle, it must not keep the process alive.
    worker.unref();
    const helper: Helper = { worker, slot: new Int32Array(new SharedArrayBuffer(4)) };
    worker.on('error', () => {
      if (this.helper === helper) this.helper = undefined;
    });
    worker.on('exit', () => {
      if (this.helper === helper) this.helper = undefined;
    });
    this.helper = helper;
    return helper;
  }
}
