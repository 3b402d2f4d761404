import { createHash, createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  ApprovalPendingError,
  type ApprovalRequest,
  type ApprovalResponse,
  type ISessionInteractionService,
  type InteractionKind,
  type InteractionRequest,
  type InteractionResponse,
  NoInteractionHostError,
} from '../../../../services/interaction/interaction';
import type { ToolAccesses } from '../../../../tool/accesses';
import type { McpCallPlan, McpCallPlanner } from '../mcpAgentServer';
import { MCP_META_OUTCOME } from '../mcpMapping';
import { MCP_META_APPROVAL } from '../mcpServeInteractions';

/**
 * Stateless approvals: a call that needs approval ends with outcome `needs_approval` and this
 * request in its result's `_meta`; the caller asks its person and repeats the call with a token
 * in `_meta["toolhost/approval"]` that any instance verifies with the shared secret.
 */
export const MCP_META_APPROVAL_REQUEST = 'toolhost/approvalRequest';

/** What a caller needs to ask its person and to sign the approval. */
export interface SignedApprovalRequest {
  /** The id to sign and to repeat the call under. */
  readonly toolCallId: string;
  readonly tool: string;
  /** sha-256 (hex) of the canonical JSON of the call's arguments ({@link argsDigest}). */
  readonly argsDigest: string;
  readonly description: string;
  readonly accesses: ToolAccesses;
  /** The approval rule the call falls under, e.g. `Bash(npm test)`. */
  readonly approvalRule: string;
  /** Why a token that came with the call was refused. */
  readonly refused?: string;
}

/** `_meta["toolhost/approval"]` of a repeated call. */
export interface ApprovalToken {
  readonly toolCallId: string;
  /** Unix time in milliseconds after which the token is refused. */
  readonly expires: number;
  /** Hex HMAC-SHA256 of `toolCallId \n tool \n argsDigest \n expires` with the shared secret ({@link signApproval}). */
  readonly signature: string;
}

/** Call ids a caller may choose or sign: what the server hands out and what fits a log line. */
export const TOOL_CALL_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;

/** JSON with object keys sorted at every level, so equal arguments give equal text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`${value} is not JSON`);
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  throw new TypeError(`a ${typeof value} is not JSON`);
}

/** sha-256 (hex) of the canonical JSON of a call's arguments. */
export function argsDigest(args: unknown): string {
  return createHash('sha256').update(canonicalJson(args ?? {})).digest('hex');
}

function mac(secret: Uint8Array | string, claims: { toolCallId: string; tool: string; argsDigest: string; expires: number }): Buffer {
  return createHmac('sha256', secret).update(`${claims.toolCallId}\n${claims.tool}\n${claims.argsDigest}\n${claims.expires}`).digest();
}

/** The token that approves one call (what an orchestrator sends after its person said yes). */
export function signApproval(secret: Uint8Array | string, claims: { readonly toolCallId: string; readonly tool: string; readonly argsDigest: string; readonly expires: number }): ApprovalToken {
  return { toolCallId: claims.toolCallId, expires: claims.expires, signature: mac(secret, claims).toString('hex') };
}

/** A `_meta["toolhost/approval"]` value as a token, or a sentence saying what is wrong with it. */
export function parseApprovalToken(value: unknown): ApprovalToken | string {
  const shape = 'an object {"toolCallId": <the id from the approval request>, "expires": <Unix time in ms>, "signature": <hex HMAC-SHA256>}';
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return `_meta["${MCP_META_APPROVAL}"] must be ${shape}.`;
  const { toolCallId, expires, signature } = value as Record<string, unknown>;
  if (typeof toolCallId !== 'string' || !TOOL_CALL_ID_PATTERN.test(toolCallId)) {
    return `_meta["${MCP_META_APPROVAL}"].toolCallId must be the toolCallId of the approval request (letters, digits, "_", ".", ":", "-"; at most 128).`;
  }
  if (typeof expires !== 'number' || !Number.isSafeInteger(expires)) return `_meta["${MCP_META_APPROVAL}"].expires must be a Unix time in milliseconds (an integer).`;
  if (typeof signature !== 'string' || !/^[0-9a-f]{64}$/i.test(signature)) return `_meta["${MCP_META_APPROVAL}"].signature must be 64 hex digits (HMAC-SHA256).`;
  return { toolCallId, expires, signature };
}

/** Undefined when `token` approves this call now; otherwise why not. The signature is compared in constant time. */
export function checkApprovalToken(secret: Uint8Array | string, token: ApprovalToken, call: { readonly tool: string; readonly argsDigest: string }, now: number): string | undefined {
  const expected = mac(secret, { toolCallId: token.toolCallId, tool: call.tool, argsDigest: call.argsDigest, expires: token.expires });
  const given = Buffer.from(token.signature, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return `the approval token does not match this call: it was signed for another tool, other arguments or another call id, or with another secret. Sign toolCallId, "${call.tool}", argsDigest ${call.argsDigest} and expires with the shared secret.`;
  }
  if (token.expires <= now) return `the approval token expired at ${new Date(token.expires).toISOString()}; ask again and sign a new one.`;
  return undefined;
}

export interface SignedApprovalsOptions {
  /** The shared secret; without it no token can be verified, so calls that need approval are denied. */
  readonly secret?: Uint8Array;
  /** `--yes`: every approval is granted without a token. */
  readonly approveAll?: boolean;
  readonly now?: () => number;
}

export const SIGNED_APPROVAL_UNAVAILABLE_HINT =
  'start "toolhost mcp serve --stateless" with --approval-secret-file <file> (or TOOLHOST_MCP_APPROVAL_SECRET) so that callers can approve calls with signed tokens, or with --yes';

/**
 * One stateless agent's host and call planner: approvals come as signed tokens with the call.
 * Without a valid token, an approval request throws ApprovalPendingError (the call ends with
 * outcome `needs_approval`) and the request goes into the result's `_meta`. Questions, plan
 * reviews and notifications have no one to go to: a stateless server cannot ask the client.
 */
export class SignedApprovals implements ISessionInteractionService, McpCallPlanner {
  readonly unavailableHint = SIGNED_APPROVAL_UNAVAILABLE_HINT;
  /** Tokens of the calls in progress, by call id (undefined: the call came without one). */
  private readonly inProgress = new Map<string, ApprovalToken | undefined>();
  private readonly requests = new Map<string, SignedApprovalRequest>();
  private readonly now: () => number;

  constructor(private readonly options: SignedApprovalsOptions = {}) {
    this.now = options.now ?? Date.now;
  }

  canRequest(kind: InteractionKind): boolean {
    return kind === 'approval' && (this.options.approveAll === true || this.options.secret !== undefined);
  }

  plan(call: { readonly name: string; readonly meta: Readonly<Record<string, unknown>> | undefined }): McpCallPlan {
    const presented = call.meta?.[MCP_META_APPROVAL];
    let token: ApprovalToken | undefined;
    if (presented !== undefined) {
      const parsed = parseApprovalToken(presented);
      if (typeof parsed === 'string') return { refuse: refusal(parsed) };
      if (this.inProgress.has(parsed.toolCallId)) {
        return { refuse: refusal(`call ${parsed.toolCallId} is already running on this server; wait for its result instead of repeating it.`) };
      }
      token = parsed;
    }
    const toolCallId = token?.toolCallId ?? `mcp_${randomUUID()}`;
    this.inProgress.set(toolCallId, token);
    return {
      toolCallId,
      finish: (result) => {
        this.inProgress.delete(toolCallId);
        const request = this.requests.get(toolCallId);
        this.requests.delete(toolCallId);
        return request ? { ...result, _meta: { ...result._meta, [MCP_META_APPROVAL_REQUEST]: request } } : result;
      },
    };
  }

  async request<K extends InteractionKind>(request: InteractionRequest<K> & { readonly kind: K }): Promise<InteractionResponse<K>> {
    if (request.kind !== 'approval') throw new NoInteractionHostError(`stateless toolhost mcp serve cannot answer "${request.kind}" requests: it cannot ask the client.`);
    const approval = request as ApprovalRequest;
    if (this.options.approveAll) return { decision: 'approve' } satisfies ApprovalResponse as InteractionResponse<K>;
    const secret = this.options.secret;
    if (secret === undefined) throw new NoInteractionHostError('no approval secret is configured.');
    const digest = argsDigest(approval.args);
    const token = this.inProgress.get(approval.toolCallId);
    const refused = token ? checkApprovalToken(secret, token, { tool: approval.toolName, argsDigest: digest }, this.now()) : undefined;
    if (token && refused === undefined) return { decision: 'approve' } satisfies ApprovalResponse as InteractionResponse<K>;
    this.requests.set(approval.toolCallId, {
      toolCallId: approval.toolCallId,
      tool: approval.toolName,
      argsDigest: digest,
      description: approval.description,
      accesses: approval.accesses ?? [],
      approvalRule: approval.approvalRule,
      ...(refused !== undefined ? { refused } : {}),
    });
    const how = `Ask the user; to approve, repeat the same call with _meta["${MCP_META_APPROVAL}"] = {"toolCallId": "${approval.toolCallId}", "expires": <Unix ms>, "signature": <hex HMAC-SHA256 of toolCallId, tool, argsDigest and expires>} (the request is in _meta["${MCP_META_APPROVAL_REQUEST}"]).`;
    throw new ApprovalPendingError(refused !== undefined ? `The approval token was refused: ${refused} ${how}` : how);
  }
}

function refusal(message: string): CallToolResult {
  return { content: [{ type: 'text', text: `The call was not run: ${message}` }], isError: true, _meta: { [MCP_META_OUTCOME]: 'rejected' } };
}
