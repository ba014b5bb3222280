// The governance contract: the policy (rules from the snapshot plus approved bypasses), the call
// being decided, and the decision. Plain data: the proxy, the MCP proxy, the gates and the SDKs all
// decide with the same functions over these shapes.
import type { DiskView } from './disk.ts';

export const RULE_SUBJECTS = ['tool', 'command', 'path', 'content', 'host'] as const;
export const RULE_ACTIONS = ['block', 'hold', 'redact'] as const;
export const RULE_MODES = ['enforce', 'warn', 'shadow'] as const;

export type RuleSubject = (typeof RULE_SUBJECTS)[number];
export type RuleAction = (typeof RULE_ACTIONS)[number];
export type RuleMode = (typeof RULE_MODES)[number];

export interface Rule {
  id: string;
  subject: RuleSubject;
  /** A glob, or a regular expression written `/…/flags`. */
  pattern: string;
  action: RuleAction;
  mode: RuleMode;
  reason: string;
  /** Only calls to tools matching this glob (default: every tool). */
  tool?: string;
}

export interface Bypass {
  id: string;
  /** The rule it lets through: a rule id, a destructive-tier id, or a glob such as `destructive.*`. */
  rule: string;
  /** Only calls to tools matching this glob. */
  tool?: string;
  /** Only calls whose command (or, for other tools, canonical input JSON) matches this pattern. */
  pattern?: string;
  reason: string;
  approved_by?: string;
  /** ISO 8601; an expired bypass is ignored. */
  expires_at?: string;
}

export interface Policy {
  rules: Rule[];
  bypasses: Bypass[];
  sources: { snapshot: string | null; bypasses: string | null };
  missing: { snapshot: boolean };
}

export interface ToolCallSubject {
  tool: string;
  input: unknown;
  /** The MCP server, when known (the MCP proxy's --name). */
  server?: string;
  harness?: string;
  /** The working directory the call runs in: the workspace root for the destructive tier. */
  cwd?: string;
  /** The home directory, so an absolute path to it is recognized as `~`. */
  home?: string;
  /** What a gate found on disk just before deciding (real paths, scripts a shell runs): see disk.ts. */
  disk?: DiskView;
}

export type Decision = 'allow' | 'block' | 'hold' | 'redact';

export interface GovernanceDecision {
  decision: Decision;
  rule: string | null;
  mode: RuleMode | null;
  /** The built-in destructive-command tier matched, whether or not the call was blocked. */
  destructive: boolean;
  reason: string;
  redactedInput?: unknown;
  /** The approved bypass that let an enforce rule's match through. */
  bypass?: string;
}
