import { isReadOnlyAccesses, type ToolAccesses } from '../../tool/accesses';
import type { ToolApprovalDefault } from '../../tool/contract';
import { type ParsedRule, type RuleMatchMode, parseRule, ruleMatches } from '../../tool/ruleMatch';

export interface ApprovalRules {
  readonly allow: readonly string[];
  readonly ask: readonly string[];
  readonly deny: readonly string[];
}

export interface ApprovalSubject {
  readonly toolName: string;
  readonly accesses: ToolAccesses;
  /** The tool's own default (RunnableToolExecution.approval, else its contribution's). */
  readonly approvalDefault?: ToolApprovalDefault;
  matchesRule?(ruleArgs: string, mode?: RuleMatchMode): boolean;
}

export type ApprovalDecision =
  | { readonly kind: 'deny'; readonly rule: string }
  | { readonly kind: 'ask'; readonly rule?: string }
  | { readonly kind: 'allow'; readonly reason: 'allow-rule' | 'session-grant' | 'tool-default' | 'read-only'; readonly rule?: string };

/** Rules are parsed once; the same few rule texts are evaluated for every call. */
const parsedRules = new Map<string, ParsedRule | null>();
const MAX_CACHED_RULES = 1000;

function parsedRule(text: string): ParsedRule | null {
  let rule = parsedRules.get(text);
  if (rule === undefined) {
    try {
      rule = parseRule(text);
    } catch {
      rule = null; // Config validation reports malformed rules; a rule that does not parse never matches.
    }
    if (parsedRules.size >= MAX_CACHED_RULES) parsedRules.clear();
    parsedRules.set(text, rule);
  }
  return rule;
}

function firstMatch(rules: readonly string[], subject: ApprovalSubject, mode: RuleMatchMode): string | undefined {
  for (const text of rules) {
    const rule = parsedRule(text);
    if (rule && ruleMatches(rule, { toolName: subject.toolName, matchesRule: subject.matchesRule }, mode)) return text;
  }
  return undefined;
}

/**
 * deny rules > ask rules > allow rules and session grants > the tool's default (its own
 * `approval`, else: calls that declare reads, and only reads of state or of paths `mayReadUnasked`
 * admits, are allowed) > ask. A call that declares no access at all is not read-only: it asks
 * unless its tool says `approval: 'auto'`. Deny
 * and ask rules fire when any part of a call matches; allow rules must cover all of it. The
 * approval service admits paths inside the workspace or the data directory that are not a regular
 * file with more than one (hard) link.
 */
export function evaluateApproval(
  rules: ApprovalRules,
  sessionGrants: readonly string[],
  subject: ApprovalSubject,
  mayReadUnasked: (path: string) => boolean,
): ApprovalDecision {
  const deny = firstMatch(rules.deny, subject, 'deny');
  if (deny !== undefined) return { kind: 'deny', rule: deny };
  const ask = firstMatch(rules.ask, subject, 'deny');
  if (ask !== undefined) return { kind: 'ask', rule: ask };
  const allow = firstMatch(rules.allow, subject, 'allow');
  if (allow !== undefined) return { kind: 'allow', reason: 'allow-rule', rule: allow };
  const grant = firstMatch(sessionGrants, subject, 'allow');
  if (grant !== undefined) return { kind: 'allow', reason: 'session-grant', rule: grant };
  if (subject.approvalDefault === 'auto') return { kind: 'allow', reason: 'tool-default' };
  if (subject.approvalDefault === 'ask') return { kind: 'ask' };
  if (subject.accesses.length > 0 && isReadOnlyAccesses(subject.accesses) && subject.accesses.every((a) => a.kind !== 'file' || mayReadUnasked(a.path))) {
    return { kind: 'allow', reason: 'read-only' };
  }
  return { kind: 'ask' };
}
