import {
  type ISessionInteractionService,
  type InteractionKind,
  type InteractionRequest,
  type InteractionResponse,
  NoInteractionHostError,
} from './interaction';

/** How a host answers one kind of request; typed per kind, so a handler needs no casts. */
export type InteractionHandler<K extends InteractionKind> = (
  request: InteractionRequest<K>,
  signal: AbortSignal,
) => InteractionResponse<K> | Promise<InteractionResponse<K>>;

/** A handler for each kind the host answers; kinds left out are answered by nobody. */
export type InteractionHandlers = { readonly [K in InteractionKind]?: InteractionHandler<K> };

export interface InteractionHostOptions {
  /** Shown when a request of a kind without a handler comes, e.g. "approve in the web UI". */
  readonly unavailableHint?: string;
}

/**
 * An `ISessionInteractionService` from one handler per kind:
 *
 * ```ts
 * interactionHost({
 *   approval: async (request) => ((await ask(request.description)) ? { decision: 'approve' } : { decision: 'reject' }),
 *   user_tool: async (request) => ({ output: await runHostTool(request.name, request.args) }),
 * });
 * ```
 *
 * `canRequest(kind)` is true exactly for the kinds with a handler.
 */
export function interactionHost(handlers: InteractionHandlers, options: InteractionHostOptions = {}): ISessionInteractionService {
  const host: ISessionInteractionService = {
    canRequest: (kind) => typeof handlers[kind] === 'function',
    async request<K extends InteractionKind>(request: InteractionRequest<K> & { readonly kind: K }, signal: AbortSignal): Promise<InteractionResponse<K>> {
      // The map type ties each handler to its kind; TypeScript cannot follow that through a generic index.
      const handler = handlers[request.kind] as InteractionHandler<K> | undefined;
      if (!handler) throw new NoInteractionHostError(`This host does not answer "${request.kind}" requests.`);
      return handler(request, signal);
    },
  };
  return options.unavailableHint === undefined ? host : { ...host, unavailableHint: options.unavailableHint };
}
