// @intutic/gate: the gate for an agent built on a framework with no hook file. `check` decides a
// tool call before it runs (policy, destructive tier, approved bypasses, and the chaos plan's faults
// after an allow) and throws a GateError when the call must not run; `record` reports the outcome.
// Same engine, events and state as the hook gates (source "sdk"), so the two cannot drift.
import { join } from 'node:path';
import { checkCall, openGate, recordOutcome, type Gate, type RefusalCode } from '@intutic/gates';
import type { GovernanceDecision } from '@intutic/governance';

export type GateErrorCode = RefusalCode;

export class GateError extends Error {
  readonly code: GateErrorCode;
  readonly decision: GovernanceDecision;
  readonly callId: string;

  constructor(code: GateErrorCode, message: string, decision: GovernanceDecision, callId: string) {
    super(message);
    this.name = 'GateError';
    this.code = code;
    this.decision = decision;
    this.callId = callId;
  }
}

export interface GateOptions {
  /** Recorded as the events' harness (default "sdk"). */
  harness?: string;
  env?: NodeJS.ProcessEnv;
  /** The project root: default events file and `.intutic/events` log live under it (default: cwd). */
  projectDir?: string;
  /** The gate's own log directory; null for none (default `<projectDir>/.intutic/events`). */
  logDir?: string | null;
  now?: () => number;
}

export interface ToolCall {
  tool: string;
  input: unknown;
  /** Your id for the call; one is made up when absent. */
  callId?: string;
  /** The MCP server, for a call that goes to one. */
  server?: string;
  cwd?: string;
}

export interface CheckedCall {
  tool: string;
  callId: string;
  /** The input to run the tool with: the original, or the redacted one. */
  input: unknown;
  decision: GovernanceDecision;
  warning?: string;
  server?: string;
}

let sequence = 0;

export class IntuticGate {
  private readonly gate: Gate;

  constructor(options: GateOptions = {}) {
    const projectDir = options.projectDir ?? process.cwd();
    this.gate = openGate({
      source: 'sdk',
      harness: options.harness ?? 'sdk',
      env: options.env ?? process.env,
      projectDir,
      logDir: options.logDir === undefined ? join(projectDir, '.intutic', 'events') : options.logDir,
      ...(options.now ? { now: options.now } : {}),
    });
  }

  /** Decide a call before it runs. Throws GateError (BLOCKED, HELD, CHAOS_FAULT, PERMISSION_DENIED) when it must not run. */
  check(call: ToolCall): CheckedCall {
    const callId = call.callId ?? `sdk-${process.pid}-${Date.now().toString(36)}-${++sequence}`;
    const verdict = checkCall(this.gate, {
      tool: call.tool,
      input: call.input,
      callId,
      ...(call.server ? { server: call.server } : {}),
      ...(call.cwd ? { cwd: call.cwd } : {}),
    });
    if (verdict.outcome === 'refuse') throw new GateError(verdict.code, verdict.message, verdict.decision, callId);
    const checked: CheckedCall = { tool: call.tool, callId, input: verdict.outcome === 'redact' ? verdict.input : call.input, decision: verdict.decision };
    if (verdict.outcome === 'allow' && verdict.warning) checked.warning = verdict.warning;
    if (call.server) checked.server = call.server;
    return checked;
  }

  /** Record how a checked call ended (recovered_within counts these). */
  record(call: CheckedCall, outcome: { ok: boolean }): void {
    recordOutcome(this.gate, { tool: call.tool, ok: outcome.ok, input: call.input, callId: call.callId, ...(call.server ? { server: call.server } : {}) });
  }

  /** check, run, record: returns what `run` returns, rethrows what it throws (recorded as failed). */
  async run<T>(call: ToolCall, run: (input: unknown) => Promise<T> | T): Promise<T> {
    const checked = this.check(call);
    try {
      const result = await run(checked.input);
      this.record(checked, { ok: true });
      return result;
    } catch (error) {
      this.record(checked, { ok: false });
      throw error;
    }
  }
}

export function createGate(options: GateOptions = {}): IntuticGate {
  return new IntuticGate(options);
}
