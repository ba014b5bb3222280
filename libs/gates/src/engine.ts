// The gate engine shared by the hook gates and the TypeScript SDK: decide a call with the policy,
// apply the plan's faults after an allow only, and append what happened to the events file (and the
// gate's own log). Harness adapters turn a Verdict into their wire format; nothing here knows one.
import { join } from 'node:path';
import type { EventInput } from '@intutic/events';
import type { Plan, PlanFault } from '@intutic/faults';
import { applicablePlan, MUTATING_REFUSED, refusalMessage, sandboxPlacement, type Placement } from '@intutic/faults/placement';
import { decideToolCall, hashToolInput, loadPolicy, type GovernanceDecision, type Policy } from '@intutic/governance';
import { appendLine, eventLine } from './event-lines.ts';
import { applyFaults, type FaultOutcome } from './faults.ts';
import { deniedMessage, governanceMessage, heldMessage, holdDeniedMessage, toolErrorMessage } from './messages.ts';
import { GATE_FAULTS, gateFaultIndexes, readPlan } from './plan.ts';
import { updateState } from './state.ts';
import { DiskInspector } from './resolve.ts';

/** Environment variable names, as @intutic/faults ENV defines them (a test keeps them equal). */
export const ENV_NAMES = { plan: 'INTUTIC_CHAOS_PLAN', events: 'INTUTIC_CHAOS_EVENTS' } as const;
export const DEFAULT_EVENTS_FILE = join('.intutic-chaos', 'events.jsonl');
export const GATE_LOG_FILE = 'gates.jsonl';

export interface GateOptions {
  source: 'gate' | 'sdk';
  harness: string;
  env: NodeJS.ProcessEnv;
  /** The project root: the default events file lives under it when a plan is set. */
  projectDir: string;
  /** Where the gate keeps its own log (`<project>/.intutic/events`), or null for none. */
  logDir: string | null;
  now?: () => number;
  /** Whether mutating faults may apply here (tests); by default the sandbox's marker decides. */
  placement?: Placement;
}

export interface Gate {
  readonly source: 'gate' | 'sdk';
  readonly harness: string;
  readonly policy: Policy;
  readonly plan: Plan | null;
  /** The plan's mutating faults of a gate's kinds, left out because the gate runs outside a sandbox, and why. */
  readonly refused: { faults: readonly PlanFault[]; message: string } | null;
  readonly eventsPath: string | null;
  readonly logPath: string | null;
  readonly statePath: string | null;
  readonly home: string | undefined;
  readonly now: () => number;
  /** Looks at the disk before each decision (real paths, scripts a shell runs, agents by content). */
  readonly disk: DiskInspector;
}

export interface GateCall {
  tool: string;
  input: unknown;
  callId?: string;
  cwd?: string;
  server?: string;
  /** An MCP tool call (its tool.error is the MCP proxy's to inject). Default: the name starts with mcp__. */
  mcp?: boolean;
}

export type RefusalCode = 'BLOCKED' | 'HELD' | 'CHAOS_FAULT' | 'PERMISSION_DENIED';

export type Verdict =
  | { outcome: 'allow'; decision: GovernanceDecision; inputHash: string; warning?: string }
  | { outcome: 'redact'; decision: GovernanceDecision; inputHash: string; input: unknown; message: string }
  | { outcome: 'refuse'; decision: GovernanceDecision; inputHash: string; code: RefusalCode; message: string };

/** Load the policy and the plan; throws on a malformed one (the hook gates then fail closed). */
export function openGate(options: GateOptions): Gate {
  const { env } = options;
  const planPath = env[ENV_NAMES.plan];
  const loaded = planPath ? readPlan(planPath) : null;
  // Mutating faults apply only inside a repetition's sandbox. None of a gate's own kinds is mutating
  // today (tool.error, permission.deny_or_delay); this keeps it so should one be added.
  const placement = loaded ? (options.placement ?? sandboxPlacement(env)) : null;
  const { plan, refused } = loaded && placement ? applicablePlan(loaded, placement) : { plan: loaded, refused: [] };
  const mine = refused.filter((f) => GATE_FAULTS.has(f.id));
  const eventsPath = env[ENV_NAMES.events] || (plan ? join(options.projectDir, DEFAULT_EVENTS_FILE) : null);
  return {
    source: options.source,
    harness: options.harness,
    policy: loadPolicy(env),
    plan,
    refused: mine.length > 0 && placement ? { faults: mine, message: refusalMessage(`intutic gate (${options.harness})`, mine, placement) } : null,
    eventsPath,
    logPath: options.logDir ? join(options.logDir, GATE_LOG_FILE) : null,
    statePath: plan && eventsPath ? `${eventsPath}.gates-state.json` : null,
    home: env.HOME,
    now: options.now ?? Date.now,
    disk: new DiskInspector(env.PATH),
  };
}

export function emit(gate: Gate, event: EventInput): void {
  const line = eventLine({ ...event, ...(gate.plan ? { run_id: gate.plan.run_id } : {}) }, gate.now());
  if (gate.eventsPath) appendLine(gate.eventsPath, line);
  if (gate.logPath) {
    try {
      appendLine(gate.logPath, line);
    } catch {
      // The log is for people reading along; the events file is the record that counts.
    }
  }
}

function refusal(gate: Gate, d: GovernanceDecision, f: FaultOutcome, tool: string): { code: RefusalCode; message: string } | null {
  const canary = gate.plan?.canary ?? '';
  if (d.decision === 'block') return { code: 'BLOCKED', message: governanceMessage(d) };
  if (d.decision === 'hold') return { code: 'HELD', message: governanceMessage(d) };
  if (f.kind === 'error') return { code: 'CHAOS_FAULT', message: toolErrorMessage(f.message, canary) };
  if (f.kind === 'held') return { code: 'HELD', message: heldMessage(tool, canary) };
  if (f.kind === 'deny') return { code: 'PERMISSION_DENIED', message: f.holdId ? holdDeniedMessage(tool, canary) : deniedMessage(tool, canary) };
  return null;
}

/** Decide one call before it runs, inject a planned fault into an allow, and record it all. */
export function checkCall(gate: Gate, call: GateCall): Verdict {
  const inputHash = hashToolInput(call.tool, call.input);
  const subject = {
    tool: call.tool,
    input: call.input,
    harness: gate.harness,
    ...pick(call, 'server', 'cwd'),
    ...(gate.home ? { home: gate.home } : {}),
  };
  // Judged by what the words point at now: links followed, scripts read (resolve.ts).
  const decision = decideToolCall(gate.policy, { ...subject, disk: gate.disk.inspect(subject) });
  const fault =
    gate.plan && gate.statePath ? stepPlan(gate, gate.plan, gate.statePath, call, inputHash, decision.decision === 'allow') : { kind: 'none' as const };
  const refused = refusal(gate, decision, fault, call.tool);
  const faultNote =
    fault.kind === 'none'
      ? ''
      : `; fault #${fault.fault.index} ${fault.fault.id}: ${fault.kind}${'holdId' in fault && fault.holdId ? ` (${fault.holdId})` : ''}`;
  emit(gate, {
    type: 'gate_decision',
    source: gate.source,
    tool: call.tool,
    decision: decision.decision,
    rule: decision.rule,
    mode: decision.mode,
    destructive: decision.destructive,
    harness: gate.harness,
    input_hash: inputHash,
    reason: decision.reason + faultNote,
    ...pick(call, 'server'),
    ...(call.callId ? { call_id: call.callId } : {}),
  });
  if (fault.kind !== 'none' && fault.kind !== 'released' && fault.injected) {
    const options = fault.fault.options;
    emit(gate, {
      type: 'fault_injected',
      source: gate.source,
      fault_index: fault.fault.index,
      fault_id: fault.fault.id,
      target: call.tool,
      ...(fault.kind === 'held' ? { hold_id: fault.holdId, detail: `mode ${String(options.mode)}, delay_s ${String(options.delay_s ?? 0)}` } : {}),
      ...(call.callId ? { call_id: call.callId } : {}),
    });
  }
  if (refused) {
    // The tool never runs, so no PostToolUse will report it: the refusal is its failed outcome.
    emit(gate, {
      type: 'tool_call',
      source: gate.source,
      tool: call.tool,
      ok: false,
      input_hash: inputHash,
      ...pick(call, 'server'),
      ...(call.callId ? { call_id: call.callId } : {}),
    });
    return { outcome: 'refuse', decision, inputHash, ...refused };
  }
  if (decision.decision === 'redact') return { outcome: 'redact', decision, inputHash, input: decision.redactedInput, message: governanceMessage(decision) };
  return decision.mode === 'warn'
    ? { outcome: 'allow', decision, inputHash, warning: `[Intutic Governance] WARNING: ${decision.reason} (rule ${decision.rule})` }
    : { outcome: 'allow', decision, inputHash };
}

function stepPlan(gate: Gate, plan: Plan, statePath: string, call: GateCall, inputHash: string, allowed: boolean): FaultOutcome {
  return updateState(statePath, plan.run_id, (state) => {
    const key = `${gate.source}:${gate.harness}`;
    if (!state.plan_loaded.includes(key)) {
      state.plan_loaded.push(key);
      emit(gate, { type: 'plan_loaded', source: gate.source, faults: gateFaultIndexes(plan), detail: gate.harness });
      if (gate.refused)
        emit(gate, {
          type: 'warning',
          source: gate.source,
          code: MUTATING_REFUSED,
          faults: gate.refused.faults.map((f) => f.index),
          detail: gate.refused.message,
        });
    }
    if (!allowed) return { kind: 'none' };
    const mcp = call.mcp ?? call.tool.startsWith('mcp__');
    return applyFaults(state, plan, { tool: call.tool, inputHash, mcp, ...pick(call, 'server') }, gate.now());
  });
}

/** After the call ran: record its outcome for recovered_within (null: the harness did not say). */
export function recordOutcome(gate: Gate, call: { tool: string; ok: boolean | null; input?: unknown; callId?: string; server?: string }): void {
  emit(gate, {
    type: 'tool_call',
    source: gate.source,
    tool: call.tool,
    ok: call.ok,
    ...(call.input !== undefined ? { input_hash: hashToolInput(call.tool, call.input) } : {}),
    ...pick(call, 'server'),
    ...(call.callId ? { call_id: call.callId } : {}),
  });
}

function pick<T extends object, K extends keyof T>(obj: T, ...keys: K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const k of keys) if (obj[k] !== undefined) out[k] = obj[k];
  return out;
}
