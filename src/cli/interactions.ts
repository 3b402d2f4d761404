import * as fs from 'node:fs';
import * as readline from 'node:readline';
import * as tty from 'node:tty';
import { injectable } from 'inversify';
import type {
  ApprovalRequest,
  ApprovalResponse,
  ISessionInteractionService,
  InteractionKind,
  InteractionRequest,
  InteractionResponse,
} from '../services/interaction/interaction';
import { NoInteractionHostError } from '../services/interaction/interaction';

const YES_HINT = 'run toolhost with --yes to approve every call';

/** `--yes`: every approval request is granted. */
@injectable()
export class ApproveAllInteractions implements ISessionInteractionService {
  canRequest(kind: InteractionKind): boolean {
    return kind === 'approval';
  }

  async request<K extends InteractionKind>(request: InteractionRequest<K> & { kind: K }): Promise<InteractionResponse<K>> {
    if (request.kind !== 'approval') throw new NoInteractionHostError(`The CLI cannot answer "${request.kind}" requests.`);
    const answer: ApprovalResponse = { decision: 'approve' };
    return answer as InteractionResponse<K>;
  }
}

/** No terminal and no --yes: nobody can approve; the denial says what to do instead. */
@injectable()
export class UnattendedInteractions implements ISessionInteractionService {
  readonly unavailableHint = YES_HINT;
  canRequest(): boolean {
    return false;
  }
  request(): Promise<never> {
    return Promise.reject(new NoInteractionHostError('No terminal to ask on.'));
  }
}

/** Whether a person can be asked on this terminal. */
export function terminalAvailable(stderrIsTty: boolean | undefined): boolean {
  if (!stderrIsTty) return false;
  try {
    fs.closeSync(fs.openSync('/dev/tty', 'r'));
    return true;
  } catch {
    return false;
  }
}

function formatRequest(request: ApprovalRequest): string {
  const display = request.display;
  const lines = [`\n? ${request.toolName} wants to run: ${request.description}`];
  if (display.kind === 'command') lines.push(`    $ ${display.command}${display.cwd ? `   (in ${display.cwd})` : ''}`);
  else if (display.kind === 'file_io' || display.kind === 'diff') lines.push(`    ${display.path}`);
  else lines.push(`    ${JSON.stringify(request.args).slice(0, 300)}`);
  lines.push(`  [y] yes   [a] yes, and allow ${request.approvalRule} for this session   [n] no (you can add a reason: "n use X instead")`);
  return lines.join('\n') + '\n  > ';
}

/**
 * The lines the person types on the terminal (/dev/tty), one reader for the whole session: a
 * reader opened per prompt left a read pending when it closed, and that read swallowed the next
 * line typed. Between prompts the reader is paused (the kernel keeps what is typed) and does not
 * keep the process alive.
 */
export class TerminalLines {
  private stream: tty.ReadStream | undefined;
  private lines: readline.Interface | undefined;
  private readonly queue: string[] = [];
  private waiting: ((line: string | undefined) => void) | undefined;
  private closed = false;

  /** The next line, or an error when the terminal closes or `signal` aborts first. */
  async next(signal: AbortSignal): Promise<string> {
    if (signal.aborted) throw new Error('The approval request was cancelled.');
    const queued = this.queue.shift();
    if (queued !== undefined) return queued;
    if (this.closed) throw new Error('The terminal closed before an answer.');
    const stream = this.open();
    stream.ref();
    stream.resume();
    try {
      const line = await new Promise<string | undefined>((resolve, reject) => {
        const onAbort = () => {
          this.waiting = undefined;
          reject(new Error('The approval request was cancelled.'));
        };
        signal.addEventListener('abort', onAbort, { once: true });
        this.waiting = (value) => {
          signal.removeEventListener('abort', onAbort);
          this.waiting = undefined;
          resolve(value);
        };
      });
      if (line === undefined) throw new Error('The terminal closed before an answer.');
      return line;
    } finally {
      if (!this.closed) {
        stream.pause();
        stream.unref();
      }
    }
  }

  dispose(): void {
    this.closed = true;
    this.lines?.close();
    this.stream?.destroy();
  }

  private open(): tty.ReadStream {
    if (this.stream) return this.stream;
    const stream = new tty.ReadStream(fs.openSync('/dev/tty', 'r'));
    const lines = readline.createInterface({ input: stream, terminal: false });
    lines.on('line', (line) => (this.waiting ? this.waiting(line) : this.queue.push(line)));
    lines.on('close', () => {
      this.closed = true;
      this.waiting?.(undefined);
    });
    this.stream = stream;
    this.lines = lines;
    return stream;
  }
}

/**
 * Asks the person on the terminal (/dev/tty, so it works while stdin carries the batch). Prompts
 * are written to stderr; stdout stays clean for --json.
 */
export class TerminalInteractions implements ISessionInteractionService {
  /** True while a question is on the screen (progress output should wait). */
  prompting = false;
  private readonly terminal = new TerminalLines();

  constructor(private readonly stderr: { write(text: string): unknown }) {}

  canRequest(kind: InteractionKind): boolean {
    return kind === 'approval';
  }

  async request<K extends InteractionKind>(request: InteractionRequest<K> & { kind: K }, signal: AbortSignal): Promise<InteractionResponse<K>> {
    if (request.kind !== 'approval') throw new NoInteractionHostError(`The CLI cannot answer "${request.kind}" requests.`);
    const answer = await this.ask(request as ApprovalRequest, signal);
    return answer as InteractionResponse<K>;
  }

  /** Closes the terminal reader (when the session ends). */
  dispose(): void {
    this.terminal.dispose();
  }

  private async ask(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalResponse> {
    this.prompting = true;
    try {
      // Bounded: a person who keeps typing something else is asked again, but never more than this.
      for (let attempt = 0; attempt < 100; attempt++) {
        this.stderr.write('\r\x1b[2K' + formatRequest(request));
        const text = (await this.terminal.next(signal)).trim();
        const [word = '', ...rest] = text.split(/\s+/);
        const choice = word.toLowerCase();
        if (choice === 'y' || choice === 'yes') return { decision: 'approve' };
        if (choice === 'a' || choice === 'always') return { decision: 'approve_session' };
        if (choice === 'n' || choice === 'no') return rest.length > 0 ? { decision: 'reject', feedback: rest.join(' ') } : { decision: 'reject' };
        this.stderr.write('  Please answer y, a or n.\n');
      }
      return { decision: 'reject', feedback: 'no valid answer was given' };
    } finally {
      this.prompting = false;
    }
  }
}
