import * as fs from 'node:fs';
import type * as readline from 'node:readline';
import * as tty from 'node:tty';
import type {
  ApprovalRequest,
  ApprovalResponse,
  ISessionInteractionService,
  InteractionKind,
  InteractionRequest,
  InteractionResponse,
  NotificationRequest,
  PlanReviewRequest,
  PlanReviewResponse,
  QuestionAnswer,
  QuestionRequest,
  QuestionResponse,
  UserQuestion,
} from '../services/interaction/interaction';
import { NoInteractionHostError } from '../services/interaction/interaction';
import { nodeBuiltins } from '../base/nodeBuiltins';

const YES_HINT = 'run toolhost with --yes to approve every call';

/** Where the CLI writes prompts and notifications (stderr; stdout stays clean for --json). */
export interface CliErrorStream {
  write(text: string): unknown;
}

const SEVERITY_MARK = { info: 'i', warning: '!', error: 'x' } as const;

/** A notification as one or more lines on stderr (title and body were stripped of control characters). */
export function formatNotification(request: NotificationRequest): string {
  const head = `[${SEVERITY_MARK[request.severity ?? 'info']}] ${request.title}`;
  const body = request.body ? request.body.split('\n').map((line) => `    ${line}`) : [];
  return [head, ...body].join('\n') + '\n';
}

/**
 * `--yes`: every approval request is granted; notifications are printed. Questions and plan
 * reviews are not answered: --yes approves calls, it has no preference to invent.
 */
export class ApproveAllInteractions implements ISessionInteractionService {
  constructor(private readonly stderr: CliErrorStream) {}

  canRequest(kind: InteractionKind): boolean {
    return kind === 'approval' || kind === 'notification';
  }

  async request<K extends InteractionKind>(request: InteractionRequest<K> & { kind: K }): Promise<InteractionResponse<K>> {
    if (request.kind === 'notification') {
      this.stderr.write(formatNotification(request as NotificationRequest));
      return undefined as InteractionResponse<K>;
    }
    if (request.kind !== 'approval') throw new NoInteractionHostError(`toolhost run --yes does not answer "${request.kind}" requests.`);
    const answer: ApprovalResponse = { decision: 'approve' };
    return answer as InteractionResponse<K>;
  }
}

/** No terminal and no --yes: nobody can approve or answer; the denial says what to do instead. Notifications are printed. */
export class UnattendedInteractions implements ISessionInteractionService {
  readonly unavailableHint = YES_HINT;
  constructor(private readonly stderr: CliErrorStream) {}

  canRequest(kind: InteractionKind): boolean {
    return kind === 'notification';
  }

  async request<K extends InteractionKind>(request: InteractionRequest<K> & { kind: K }): Promise<InteractionResponse<K>> {
    if (request.kind !== 'notification') throw new NoInteractionHostError('No terminal to ask on.');
    this.stderr.write(formatNotification(request as NotificationRequest));
    return undefined as InteractionResponse<K>;
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

export function formatApprovalRequest(request: ApprovalRequest): string {
  const display = request.display;
  const lines = [`\n? ${request.toolName}${request.from ? ` (${request.from})` : ''} wants to run: ${request.description}`];
  if (display.kind === 'command') lines.push(`    $ ${display.command}${display.cwd ? `   (in ${display.cwd})` : ''}`);
  else if (display.kind === 'file_io' || display.kind === 'diff') lines.push(`    ${display.path}`);
  else if (display.kind === 'plan_review') {
    lines.push(`    the plan${display.path !== undefined ? ` in ${display.path}` : ''} (you review it next)`);
    display.options?.forEach((o, i) => lines.push(`    ${i + 1}. ${o.label}${o.description ? `: ${o.description}` : ''}`));
  } else lines.push(`    ${JSON.stringify(request.args).slice(0, 300)}`);
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
    const lines = nodeBuiltins.readline().createInterface({ input: stream, terminal: false });
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

/** One question on the terminal: header, text, numbered options, and "Other" as the last number. */
export function formatQuestion(question: UserQuestion, index: number, count: number): string {
  const lines = [`\n? ${count > 1 ? `(${index + 1}/${count}) ` : ''}[${question.header}] ${question.question}`];
  question.options.forEach((option, i) => lines.push(`    ${i + 1}. ${option.label}${option.description ? ` - ${option.description}` : ''}`));
  lines.push(`    ${question.options.length + 1}. Other (type your own answer)`);
  const pick = question.multiSelect ? 'numbers separated by commas (e.g. 1,3)' : 'a number';
  lines.push(`  Type ${pick}, or your own answer; an empty line skips the questions without answering`);
  return lines.join('\n') + '\n  > ';
}

/** What a typed line means for a question: an answer, "ask for the Other text", or a problem to show. */
export function parseQuestionLine(question: UserQuestion, text: string): QuestionAnswer | 'other' | { readonly problem: string } {
  const other = question.options.length + 1;
  if (!/^\d+(\s*,\s*\d+)*$/.test(text)) return { selected: [], other: text };
  const numbers = [...new Set(text.split(',').map((n) => Number(n.trim())))];
  if (numbers.some((n) => n < 1 || n > other)) return { problem: `Please type numbers from 1 to ${other}.` };
  if (!question.multiSelect && numbers.length > 1) return { problem: 'Please pick one number.' };
  if (numbers.includes(other)) {
    if (numbers.length === 1) return 'other';
    return { problem: `Type your own answer alone, or pick from 1 to ${other - 1}.` };
  }
  return { selected: numbers.map((n) => question.options[n - 1]!.label) };
}

/** What a typed line means for a plan review: a decision, "ask for the revision", or a problem to show. */
export function parsePlanReviewLine(options: readonly string[], text: string): PlanReviewResponse | 'revise' | { readonly problem: string } {
  const [word = '', ...rest] = text.split(/\s+/);
  const choice = word.toLowerCase();
  const tail = rest.join(' ');
  if (choice === 'a' || choice === 'approve') {
    if (tail === '') return { decision: 'approve' };
    const n = Number(tail);
    if (Number.isInteger(n) && n >= 1 && n <= options.length) return { decision: 'approve', option: options[n - 1]! };
    return { problem: options.length > 0 ? `Please type "a" or "a 1" to "a ${options.length}".` : 'Please type "a" alone to approve.' };
  }
  if (choice === 'r' || choice === 'revise') return tail === '' ? 'revise' : { decision: 'revise', feedback: tail };
  if (choice === 'x' || choice === 'reject') return tail === '' ? { decision: 'reject' } : { decision: 'reject', feedback: tail };
  return { problem: 'Please answer a, r or x.' };
}

const PLAN_PREVIEW_LINES = 40;

function formatPlanReview(request: PlanReviewRequest): string {
  const lines = request.plan.replace(/\r\n?/g, '\n').replace(/\n$/, '').split('\n');
  const shown = lines.slice(0, PLAN_PREVIEW_LINES).map((line) => `  | ${line}`);
  if (lines.length > PLAN_PREVIEW_LINES) shown.push(`  | … (${lines.length - PLAN_PREVIEW_LINES} more lines in ${request.path})`);
  const out = [`\n? Review the plan in ${request.path}`, ...shown];
  request.options?.forEach((option, i) => out.push(`    ${i + 1}. ${option}`));
  const approve = request.options?.length ? '[a] approve (or "a 2": approve with option 2)' : '[a] approve';
  out.push(`  ${approve}   [r] revise: "r what to change"   [x] reject (you can add a reason: "x not now")`);
  return out.join('\n') + '\n  > ';
}

/**
 * Asks the person on the terminal (/dev/tty, so it works while stdin carries the batch): approvals,
 * questions and plan reviews; notifications are printed. Prompts are written to stderr; stdout
 * stays clean for --json. One prompt at a time: two questions of a batch never interleave.
 */
export class TerminalInteractions implements ISessionInteractionService {
  /** True while a question is on the screen (progress output should wait). */
  prompting = false;
  private readonly terminal = new TerminalLines();
  private turn: Promise<unknown> = Promise.resolve();

  constructor(private readonly stderr: CliErrorStream) {}

  canRequest(kind: InteractionKind): boolean {
    return kind === 'approval' || kind === 'question' || kind === 'plan_review' || kind === 'notification';
  }

  async request<K extends InteractionKind>(request: InteractionRequest<K> & { kind: K }, signal: AbortSignal): Promise<InteractionResponse<K>> {
    switch (request.kind) {
      case 'notification':
        this.stderr.write('\r\x1b[2K' + formatNotification(request as NotificationRequest));
        return undefined as InteractionResponse<K>;
      case 'approval':
        return (await this.prompt(() => this.askApproval(request as ApprovalRequest, signal))) as InteractionResponse<K>;
      case 'question':
        return (await this.prompt(() => this.askQuestions(request as QuestionRequest, signal))) as InteractionResponse<K>;
      case 'plan_review':
        return (await this.prompt(() => this.askPlanReview(request as PlanReviewRequest, signal))) as InteractionResponse<K>;
      default:
        throw new NoInteractionHostError(`The CLI cannot answer "${request.kind}" requests.`);
    }
  }

  /** Closes the terminal reader (when the session ends). */
  dispose(): void {
    this.terminal.dispose();
  }

  /** Runs one prompt after the ones before it have finished: the terminal shows one question at a time. */
  private prompt<T>(ask: () => Promise<T>): Promise<T> {
    const run = this.turn.then(async () => {
      this.prompting = true;
      try {
        return await ask();
      } finally {
        this.prompting = false;
      }
    });
    this.turn = run.catch(() => undefined);
    return run;
  }

  /** Asks until `interpret` accepts a line; bounded, so a person who keeps typing something else is asked again, but not forever. */
  private async askUntil<T>(prompt: string, signal: AbortSignal, interpret: (text: string) => T | { readonly problem: string }): Promise<T | undefined> {
    for (let attempt = 0; attempt < 100; attempt++) {
      this.stderr.write('\r\x1b[2K' + prompt);
      const answer = interpret((await this.terminal.next(signal)).trim());
      if (typeof answer === 'object' && answer !== null && 'problem' in answer) {
        this.stderr.write(`  ${answer.problem}\n`);
        continue;
      }
      return answer as T;
    }
    return undefined;
  }

  private async askApproval(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalResponse> {
    const answer = await this.askUntil<ApprovalResponse>(formatApprovalRequest(request), signal, (text) => {
        const [word = '', ...rest] = text.split(/\s+/);
        const choice = word.toLowerCase();
        if (choice === 'y' || choice === 'yes') return { decision: 'approve' };
        if (choice === 'a' || choice === 'always') return { decision: 'approve_session' };
        if (choice === 'n' || choice === 'no') return rest.length > 0 ? { decision: 'reject', feedback: rest.join(' ') } : { decision: 'reject' };
        return { problem: 'Please answer y, a or n.' };
    });
    return answer ?? { decision: 'reject', feedback: 'no valid answer was given' };
  }

  private async askQuestions(request: QuestionRequest, signal: AbortSignal): Promise<QuestionResponse> {
    const answers: QuestionAnswer[] = [];
    for (const [index, question] of request.questions.entries()) {
      const answer = await this.askUntil<QuestionAnswer | 'other' | 'dismiss'>(formatQuestion(question, index, request.questions.length), signal, (text) =>
        text === '' ? 'dismiss' : parseQuestionLine(question, text),
      );
      if (answer === undefined) throw new Error('no valid answer was typed');
      if (answer === 'dismiss') return { status: 'dismissed' };
      if (answer !== 'other') {
        answers.push(answer);
        continue;
      }
      const typed = await this.askUntil<string>('  Your answer > ', signal, (text) => (text === '' ? { problem: 'Please type your answer.' } : text));
      if (typed === undefined) throw new Error('no valid answer was typed');
      answers.push({ selected: [], other: typed });
    }
    return { status: 'answered', answers };
  }

  private async askPlanReview(request: PlanReviewRequest, signal: AbortSignal): Promise<PlanReviewResponse> {
    const options = request.options ?? [];
    const decision = await this.askUntil(formatPlanReview(request), signal, (text) => parsePlanReviewLine(options, text));
    if (decision === undefined) return { decision: 'reject', feedback: 'no valid answer was given' };
    if (decision !== 'revise') return decision;
    const feedback = await this.askUntil<string>('  What should change? > ', signal, (text) => (text === '' ? { problem: 'Please say what to change.' } : text));
    return feedback === undefined ? { decision: 'reject', feedback: 'no valid answer was given' } : { decision: 'revise', feedback };
  }
}
