import type {
  ApprovalRequest,
  ISessionInteractionService,
  InteractionKind,
  InteractionRequest,
  InteractionResponse,
} from '../../src/services/interaction/interaction';
import { type InteractionHandler, type InteractionHandlers, interactionHost } from '../../src/services/interaction/interactionHost';

/**
 * A host (ISessionInteractionService) for tests: toolhost's own `interactionHost` with one
 * handler per kind it answers, recording every request, in order.
 */
export class FakeHost implements ISessionInteractionService {
  readonly requests: InteractionRequest[] = [];
  private readonly host: ISessionInteractionService;
  constructor(handlers: InteractionHandlers) {
    this.host = interactionHost(handlers);
  }

  canRequest(kind: InteractionKind): boolean {
    return this.host.canRequest(kind);
  }

  async request<K extends InteractionKind>(request: InteractionRequest<K> & { kind: K }, signal: AbortSignal): Promise<InteractionResponse<K>> {
    this.requests.push(request);
    return this.host.request<K>(request, signal);
  }

  /** The approval requests, in order. */
  get approvals(): ApprovalRequest[] {
    return this.requests.filter((r): r is ApprovalRequest => r.kind === 'approval');
  }
}

/** An approval handler that approves every call. */
export const approve: InteractionHandler<'approval'> = () => ({ decision: 'approve' });

/** A host that approves every call (and answers nothing else). */
export function approveAll(): FakeHost {
  return new FakeHost({ approval: approve });
}
