import type {
  ApprovalRequest,
  ApprovalResponse,
  ISessionInteractionService,
  InteractionKind,
  InteractionRequest,
  InteractionResponse,
} from '../../src/services/interaction/interaction';

/** A host that answers approvals with a function and records every request, in order. */
export class ScriptedInteractions implements ISessionInteractionService {
  readonly requests: InteractionRequest[] = [];
  constructor(private readonly answer: (request: ApprovalRequest, signal: AbortSignal) => ApprovalResponse | Promise<ApprovalResponse>) {}

  canRequest(kind: InteractionKind): boolean {
    return kind === 'approval';
  }

  async request<K extends InteractionKind>(request: InteractionRequest<K> & { kind: K }, signal: AbortSignal): Promise<InteractionResponse<K>> {
    this.requests.push(request);
    if (request.kind !== 'approval') throw new Error(`unexpected ${request.kind} request`);
    const answer = await this.answer(request as ApprovalRequest, signal);
    return answer as InteractionResponse<K>;
  }

  get approvals(): ApprovalRequest[] {
    return this.requests.filter((r): r is ApprovalRequest => r.kind === 'approval');
  }
}
