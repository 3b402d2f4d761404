import * as fs from 'node:fs';
import * as readline from 'node:readline';
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
 * Asks the person on the terminal (/dev/tty, so it works while stdin carries the batch). Prompts
 * are written to stderr; stdout stays clean for --json.
 */
export class TerminalInteractions implements ISessionInteractionService {
  /** True while a question is on the screen (progress output should wait). */
  prompting = false;

  constructor(private readonly stderr: { write(text: string): unknown }) {}

  canRequest(kind: InteractionKind): boolean {
    return kind === 'approval';
  }

  async request<K extends InteractionKind>(request: InteractionRequest<K> & { kind: K }, signal: AbortSignal): Promise<InteractionResponse<K>> {
    if (request.kind !== 'approval') throw new NoInteractionHostError(`The CLI cannot answer "${request.kind}" requests.`);
    const answer = await this.ask(request as ApprovalRequest, signal);
    return answer as InteractionResponse<K>;
  }

  private async ask(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalResponse> {
    const input = fs.createReadStream('/dev/tty');
    const rl = readline.createInterface({ input, terminal: false });
    this.prompting = true;
    try {
      for (;;) {
        this.stderr.write('\r\x1b[2K' + formatRequest(request));
        const line = await new Promise<string>((resolve, reject) => {
          const onAbort = () => reject(new Error('The approval request was cancelled.'));
          signal.addEventListener('abort', onAbort, { once: true });
          rl.once('line', (text) => {
            signal.removeEventListener('abort', onAbort);
            resolve(text);
          });
          rl.once('close', () => reject(new Error('The terminal closed before an answer.')));
        });
        const text = line.trim();
        const [word = '', ...rest] = text.split(/\s+/);
        const choice = word.toLowerCase();
        if (choice === 'y' || choice === 'yes') return { decision: 'approve' };
        if (choice === 'a' || choice === 'always') return { decision: 'approve_session' };
        if (choice === 'n' || choice === 'no') return rest.length > 0 ? { decision: 'reject', feedback: rest.join(' ') } : { decision: 'reject' };
        this.stderr.write('  Please answer y, a or n.\n');
      }
    } finally {
      this.prompting = false;
      rl.close();
      input.destroy();
    }
  }
}
