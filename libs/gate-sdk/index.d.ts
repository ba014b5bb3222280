// Types of the published @intutic/gate bundle (dist/index.mjs). Kept in step with src/index.ts by
// test/types-conform.test.ts, which the repository's typecheck compiles.

export type GateErrorCode = 'BLOCKED' | 'HELD' | 'CHAOS_FAULT' | 'PERMISSION_DENIED';

export interface GovernanceDecision {
  decision: 'allow' | 'block' | 'hold' | 'redact';
  rule: string | null;
  mode: 'enforce' | 'warn' | 'shadow' | null;
  destructive: boolean;
  reason: string;
  redactedInput?: unknown;
  bypass?: string;
}

export declare class GateError extends Error {
  readonly code: GateErrorCode;
  readonly decision: GovernanceDecision;
  readonly callId: string;
  constructor(code: GateErrorCode, message: string, decision: GovernanceDecision, callId: string);
}

export interface GateOptions {
  harness?: string;
  env?: Record<string, string | undefined>;
  projectDir?: string;
  logDir?: string | null;
  now?: () => number;
}

export interface ToolCall {
  tool: string;
  input: unknown;
  callId?: string;
  server?: string;
  cwd?: string;
}

export interface CheckedCall {
  tool: string;
  callId: string;
  input: unknown;
  decision: GovernanceDecision;
  warning?: string;
  server?: string;
}

export declare class IntuticGate {
  constructor(options?: GateOptions);
  check(call: ToolCall): CheckedCall;
  record(call: CheckedCall, outcome: { ok: boolean }): void;
  run<T>(call: ToolCall, run: (input: unknown) => Promise<T> | T): Promise<T>;
}

export declare function createGate(options?: GateOptions): IntuticGate;
