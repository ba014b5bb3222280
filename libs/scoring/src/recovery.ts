// recovered_within, counted as the spec says, in constant memory: only the window after the latest
// injection is kept. The faulted call is left out, an MCP call reported by both the harness gate
// (mcp__server__tool) and the MCP proxy (tool) counts once, and after a model or egress fault any
// successful tool call counts. Retries of one hold do not open a new window: each is a failed call.
import { canonicalToolName, splitMcpToolName } from '@intutic/faults';
import type { EventOf } from '@intutic/events';
import type { RepetitionFacts } from './records.ts';

type ToolCall = EventOf<'tool_call'>;
type FaultInjected = EventOf<'fault_injected'>;

/** Twins of one MCP call arrive close together; a few pending entries cover parallel calls. */
const MAX_PENDING_TWINS = 16;

interface PendingTwin {
  fromMcpProxy: boolean;
  ok: boolean;
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
  /** The faulted call, by id; or, without an id, the first call on the tool (failed, for fail-safe faults). */
  excludeCallId: string | null;
  excludeFirst: 'failed' | 'any' | null;
  /** Only a call the MCP proxy faulted reached the harness's report too; a gate's refusal has no twin. */
  faultedCallHasTwin: boolean;
  recovered: boolean;
  calls: number;
  pending: PendingTwin[];
}

export interface FaultKind {
  /** Fail-safe faults make the faulted call fail; mutating ones let it "succeed" with a changed result. */
  mutating: boolean;
}

export class RecoveryTracker {
  private window: Window | null = null;

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
      excludeCallId: anyTool ? null : (event.call_id ?? null),
      excludeFirst: anyTool || event.call_id !== undefined ? null : kind.mutating ? 'any' : 'failed',
      faultedCallHasTwin: event.source === 'mcp-proxy',
      recovered: false,
      calls: 0,
      pending: [],
    };
  }

  onToolCall(call: ToolCall): void {
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

    const onTargetTool = tool === w.targetTool && serversAgree(server, w.targetServer);
    const faultedById = w.excludeCallId !== null && call.call_id === w.excludeCallId;
    const faultedByPosition = w.excludeCallId === null && w.excludeFirst !== null && onTargetTool && (w.excludeFirst === 'any' || !call.ok);
    if (faultedById || faultedByPosition) {
      w.excludeCallId = null;
      w.excludeFirst = null;
      if (w.faultedCallHasTwin) remember(w, report);
      return;
    }
    remember(w, report);
    w.calls++;
    if (call.ok && (w.anyTool || onTargetTool)) w.recovered = true;
  }

  facts(): RepetitionFacts['recovery'] {
    const w = this.window;
    if (w === null) return null;
    return { fault_index: w.faultIndex, fault_id: w.faultId, target: w.target, any_tool: w.anyTool, recovered: w.recovered, calls: w.calls };
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
