import type {
  ApprovalRequest,
  ISessionInteractionService,
  InteractionKind,
  InteractionRequest,
  InteractionResponse,
} from '../../src/services/interaction/interaction';

/** How a fake host answers one kind of request. */
export type FakeHostHandler<K extends InteractionKind> = (
  request: InteractionRequest<K>,
  signal: AbortSignal,
) => InteractionResponse<K> | Promise<InteractionResponse<K>>;

/** One handler per kind the host can answer; a kind without a handler is one it cannot. */
export type FakeHostHandlers = { readonly [K in InteractionKind]?: FakeHostHandler<K> };

/**
 * A host (ISessionInteractionService) for tests: it answers each kind of request with its
 * handler and records every request, in order.
 */
export class FakeHost implements ISessionInteractionService {
  readonly requests: InteractionRequest[] = [];
  constructor(private readonly handlers: FakeHostHandlers) {}

  canRequest(kind: InteractionKind): boolean {
    return this.handlers[kind] !== undefined;
  }

  async request<K extends InteractionKind>(request: InteractionRequest<K> & { kind: K }, signal: AbortSignal): Promise<InteractionResponse<K>> {
    this.requests.push(request);
    const handler = this.handlers[request.kind] as FakeHostHandler<K> | undefined;
    if (!handler) throw new Error(`unexpected ${request.kind} request`);
    return handler(request, signal);
  }

  /** The approval requests, in order. */
  get approvals(): ApprovalRequest[] {
    return this.requests.filter((r): r is ApprovalRequest => r.kind === 'approval');
  }
}

/** An approval handler that approves every call. */
export const approve: FakeHostHandler<'approval'> = () => ({ decision: 'approve' });

/** A host that approves every call (and answers nothing else). */
export function approveAll(): FakeHost {
  return new FakeHost({ approval: approve });
}
