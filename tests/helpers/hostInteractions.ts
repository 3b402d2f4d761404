import type {
  ApprovalResponse,
  ISessionInteractionService,
  InteractionKind,
  InteractionRequest,
  InteractionResponse,
  UserToolRequest,
  UserToolResponse,
} from '../../src/services/interaction/interaction';

/** A host that runs user tools with a function, answers approvals with another, and records every request. */
export class FakeHost implements ISessionInteractionService {
  readonly requests: InteractionRequest[] = [];
  constructor(
    private readonly runTool: (request: UserToolRequest, signal: AbortSignal) => UserToolResponse | Promise<UserToolResponse>,
    private readonly approve: () => ApprovalResponse = () => ({ decision: 'approve' }),
  ) {}

  canRequest(kind: InteractionKind): boolean {
    return kind === 'user_tool' || kind === 'approval';
  }

  async request<K extends InteractionKind>(request: InteractionRequest<K> & { kind: K }, signal: AbortSignal): Promise<InteractionResponse<K>> {
    this.requests.push(request);
    if (request.kind === 'user_tool') return (await this.runTool(request as UserToolRequest, signal)) as InteractionResponse<K>;
    if (request.kind === 'approval') return this.approve() as InteractionResponse<K>;
    throw new Error(`unexpected ${request.kind}`);
  }
}
