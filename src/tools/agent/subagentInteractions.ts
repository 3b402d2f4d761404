import type { Event } from '../../base/event';
import { toDisposable } from '../../base/lifecycle';
import type { ISessionInteractionService, InteractionKind, InteractionRequest, InteractionResponse } from '../../services/interaction/interaction';

/**
 * A subagent's host: the parent's (looked up at each use, so a host rebound on the parent is
 * followed), with every request labelled `from subagent <description>`.
 */
export class SubagentInteractionService implements ISessionInteractionService {
  constructor(
    private readonly parentHost: () => ISessionInteractionService,
    private readonly label: string,
  ) {}

  canRequest(kind: InteractionKind): boolean {
    return this.parentHost().canRequest(kind);
  }

  readonly onDidChangeAvailability: Event<void> = (listener) => this.parentHost().onDidChangeAvailability?.(listener) ?? toDisposable(() => undefined);

  get unavailableHint(): string | undefined {
    return this.parentHost().unavailableHint;
  }

  request<K extends InteractionKind>(request: InteractionRequest<K> & { readonly kind: K }, signal: AbortSignal): Promise<InteractionResponse<K>> {
    const labelled = Object.assign({}, request, { from: request.from ? `${this.label}, ${request.from}` : this.label });
    return this.parentHost().request<K>(labelled, signal);
  }
}
