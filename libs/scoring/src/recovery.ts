// recovered_within, counted as the spec says, in constant memory: only the window after the latest
// injection is kept. The faulted call is left out, an MCP call reported by both the harness gate
// (mcp__server__tool) and the MCP proxy (tool) counts once, and after a model or egress fault any
// successful tool call counts. Retries of one hold do not open a new window: each is a failed call.
// The proxy injects model and egress faults into a request, not a tool call: the faulted call is the
// tool call under way when it did (its gate decision at or before the injection, its outcome after),
// so a `curl` that exits 0 on an injected 401 is not the recovery.
import { canonicalToolName, splitMcpToolName } from '@intutic/faults';
import type { Component, EventOf } from '@intutic/events';
import type { RepetitionFacts } from './records.ts';

type ToolCall = EventOf<'tool_call'>;
type FaultInjected = EventOf<'fault_injected'>;
type GateDecision = EventOf<'gate_decision'>;

/** Twins of one MCP call arrive close together; a few pending entries cover parallel calls. */
const MAX_PENDING_TWINS = 16;
/**
 * Calls decided but not yet reported, to date a call's start. Parallel calls are few; a decision
 * whose outcome never comes (the harness was killed) is dropped once this many newer ones wait.
 */
const MAX_OPEN_CALLS = 64;

/** A call a gate, SDK or MCP proxy decided on, whose outcome (tool_call) has not come yet. */
interface OpenCall {
  source: Component;
  tool: string;
  callId: string | null;
  inputHash: string | null;
  decidedAt: number;
}

interface PendingTwin {
  fromMcpProxy: boolean;
  ok: boolean | null;
  tool: string;
  server: string | null;
}

interface Window {
  faultIndex: number;
  faultId: string;
  target: string;
  targetTool: string;
  targetServer: string | null;
  anyTool: boolean;
  /** When the fault was injected: for a model or egress fault, calls decided by then were under way. */
  injectedAt: number;
  /** The faulted call, by id; or, without an id, the first call on the tool (failed, for fail-safe faults). */
  excludeCallId: string | null;
  excludeFirst: 'failed' | 'any' | null;
  /** Only a call the MCP proxy faulted reached the harness's report too; a gate's refusal has no twin. */
  faultedCallHasTwin: boolean;
  recovered: boolean;
  calls: number;
  /** Counted calls whose outcome the harness did not report (ok null): any of them may have been the recovery. */
  unknownCalls: number;
  pending: PendingTwin[];
}

export interface FaultKind {
  /** Fail-safe faults make the faulted call fail; mutating ones let it "succeed" with a changed result. */
  mutating: boolean;
}

export class RecoveryTracker {
  private window: Window | null = null;
  private readonly open: OpenCall[] = [];

  /**
   * A component decided on a tool call before it ran. The governance proxy's decisions are about a
   * host, not a tool call, and open nothing.
   */
  onCallDecided(decision: GateDecision): void {
    if (decision.source === 'proxy' || decision.source === 'runner') return;
    this.open.push({
      source: decision.source,
      tool: decision.tool,
      callId: decision.call_id ?? null,
      inputHash: decision.input_hash ?? null,
      decidedAt: decision.ts,
    });
    if (this.open.length > MAX_OPEN_CALLS) this.open.shift();
  }

  /** A new injection (not a retry of a hold already counted) opens a new window. */
  onInjection(event: FaultInjected, kind: FaultKind): void {
    const anyTool = event.fault_id.startsWith('llm.') || event.fault_id.startsWith('egress.');
    const split = splitMcpToolName(event.target);
    this.window = {
      faultIndex: event.fault_index,
      faultId: event.fault_id,
      target: event.target,
      targetTool: canonicalToolName(event.target),
      targetServer: split?.server ?? null,
      anyTool,
      injectedAt: event.ts,
      excludeCallId: anyTool ? null : (event.call_id ?? null),
      excludeFirst: anyTool || event.call_id !== undefined ? null : kind.mutating ? 'any' : 'failed',
      faultedCallHasTwin: event.source === 'mcp-proxy',
      recovered: false,
      calls: 0,
      unknownCalls: 0,
      pending: [],
    };
  }

  onToolCall(call: ToolCall): void {
    const decidedAt = this.takeOpen(call);
    const w = this.window;
    if (w === null || w.recovered) return;
    const fromMcpProxy = call.source === 'mcp-proxy';
    const split = splitMcpToolName(call.tool);
    const tool = split?.tool ?? call.tool; // canonicalToolName, without splitting twice
    const server = call.server ?? split?.server ?? null;
    // Only an MCP call can have a twin: the MCP proxy's report, or a harness report of mcp__server__tool.
    const canHaveTwin = fromMcpProxy || split !== null;
    const report: PendingTwin | null = canHaveTwin ? { fromMcpProxy, ok: call.ok, tool, server } : null;
    if (report !== null && this.takeTwin(w, report)) return;

    // "After the last injected fault": a call already under way when the proxy injected is the
    // faulted call (or began before the fault); one never decided is dated by its outcome alone.
    if (w.anyTool && (decidedAt === null ? call.ts < w.injectedAt : decidedAt <= w.injectedAt)) {
      remember(w, report);
      return;
    }

    const onTargetTool = tool === w.targetTool && serversAgree(server, w.targetServer);
    const faultedById = w.excludeCallId !== null && call.call_id === w.excludeCallId;
    const faultedByPosition = w.excludeCallId === null && w.excludeFirst !== null && onTargetTool && (w.excludeFirst === 'any' || call.ok !== true);
    if (faultedById || faultedByPosition) {
      w.excludeCallId = null;
      w.excludeFirst = null;
      if (w.faultedCallHasTwin) remember(w, report);
      return;
    }
    remember(w, report);
    w.calls++;
    if (call.ok === null) w.unknownCalls++;
    if (call.ok === true && (w.anyTool || onTargetTool)) w.recovered = true;
  }

  facts(): RepetitionFacts['recovery'] {
    const w = this.window;
    if (w === null) return null;
    return {
      fault_index: w.faultIndex,
      fault_id: w.faultId,
      target: w.target,
      any_tool: w.anyTool,
      recovered: w.recovered,
      calls: w.calls,
      unknown_calls: w.unknownCalls,
    };
  }

  /**
   * The start of the call this outcome reports, taken out of the open calls: its decision from the
   * same component, by call id, else the latest one with its tool and input hash (Cursor's hooks give
   * the two halves of one call different ids; an older identical decision may be one whose outcome
   * never came). null when no decision was seen.
   */
  private takeOpen(call: ToolCall): number | null {
    const open = this.open;
    let i = call.call_id === undefined ? -1 : open.findIndex((o) => o.source === call.source && o.callId === call.call_id);
    if (i === -1 && call.input_hash !== undefined) {
      for (let j = open.length - 1; j >= 0 && i === -1; j--) {
        const o = open[j]!;
        if (o.source === call.source && o.tool === call.tool && o.inputHash === call.input_hash) i = j;
      }
    }
    if (i === -1) return null;
    const [taken] = open.splice(i, 1);
    return taken!.decidedAt;
  }

  /** Drop the oldest pending report of the same MCP call (same outcome) from the other component, if any. */
  private takeTwin(w: Window, call: PendingTwin): boolean {
    const i = w.pending.findIndex(
      (p) => p.fromMcpProxy !== call.fromMcpProxy && p.ok === call.ok && p.tool === call.tool && serversAgree(p.server, call.server),
    );
    if (i === -1) return false;
    w.pending.splice(i, 1);
    return true;
  }
}

/** Keep an MCP call's report so its twin from the other component is not counted again. */
function remember(w: Window, report: PendingTwin | null): void {
  if (report === null) return;
  w.pending.push(report);
  if (w.pending.length > MAX_PENDING_TWINS) w.pending.shift();
}

/** An unknown server agrees with any; two known servers must be the same. */
function serversAgree(a: string | null, b: string | null): boolean {
  return a === null || b === null || a === b;
}
