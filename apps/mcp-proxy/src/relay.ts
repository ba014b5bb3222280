// The message router between the MCP client (our stdin/stdout) and the server (the child's pipes).
// A raw JSON-RPC relay: every line it does not govern is forwarded byte for byte, so initialize,
// resources, prompts, notifications, progress, cancellation, pagination and protocol versions the
// proxy has never heard of pass untouched. It governs tools/call, records each call's outcome, and
// rewrites only what a fault asks for (tools/list after a toolset change, a result carrying a payload).
import { ErrorCode, ListToolsResultSchema, type CallToolResult, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { classify, encode, idKey, parseLine, resultMessage, toolErrorResult, toolListChangedNotification, unknownToolText } from './messages.ts';
import { refusalText, type Governor } from './governance.ts';
import type { FaultPlanner } from './faults.ts';
import { faultErrorResult, injectPayload, staleResult, withCanary } from './results.ts';
import type { Toolset } from './toolset.ts';
import type { Log, Recorder } from './recorder.ts';
import type { PlanFault } from '@intutic/faults';

export interface RelayDeps {
  governor: Governor;
  planner: FaultPlanner | null;
  toolset: Toolset;
  recorder: Recorder;
  log: Log;
  /** Write one framed message ("…\n") to the client or to the server. */
  toClient: (line: string) => void;
  toServer: (line: string) => void;
}

type Pending = { kind: 'call'; tool: string; inputHash: string; injects: { fault: PlanFault; payload: string }[] } | { kind: 'list' } | { kind: 'initialize' };

export class Relay {
  private readonly deps: RelayDeps;
  private readonly pending = new Map<string, Pending>();

  constructor(deps: RelayDeps) {
    this.deps = deps;
  }

  fromClient(line: string): void {
    const value = parseLine(line);
    if (value === undefined) return this.dropNonJson('client', line);
    // A JSON-RPC batch is taken apart so no tools/call inside one escapes governance; answers go back one by one.
    if (Array.isArray(value)) return value.forEach((item) => this.fromClient(JSON.stringify(item)));
    const message = classify(value);
    if (message.kind === 'request') {
      if (message.method === 'tools/call') return this.call(message.id, message.params, line);
      if (message.method === 'tools/list') this.pending.set(idKey(message.id), { kind: 'list' });
      if (message.method === 'initialize') this.pending.set(idKey(message.id), { kind: 'initialize' });
    } else if (message.kind === 'notification' && message.method === 'notifications/cancelled') {
      this.cancelled(message.params);
    }
    this.deps.toServer(line + '\n');
  }

  fromServer(line: string): void {
    const value = parseLine(line);
    if (value === undefined) return this.dropNonJson('server', line);
    if (Array.isArray(value)) {
      if (!value.some((item) => this.tracked(item))) return this.deps.toClient(line + '\n');
      return value.forEach((item) => this.fromServer(JSON.stringify(item)));
    }
    const message = classify(value);
    const pending = message.kind === 'response' ? this.pending.get(idKey(message.id)) : undefined;
    if (message.kind !== 'response' || pending === undefined) return this.deps.toClient(line + '\n');
    this.pending.delete(idKey(message.id));
    const replaced =
      pending.kind === 'call'
        ? this.callAnswered(message.id, pending, message.raw)
        : pending.kind === 'list'
          ? this.listAnswered(message.raw)
          : this.initializeAnswered(message.raw);
    this.deps.toClient(replaced === undefined ? line + '\n' : encode(replaced));
  }

  private call(id: RequestId, rawParams: unknown, line: string): void {
    const params = isRecord(rawParams) ? rawParams : {};
    const tool = params.name;
    // No tool name, nothing that could run: the server answers the malformed call itself.
    if (typeof tool !== 'string') return this.deps.toServer(line + '\n');
    // Arguments that are not an object cannot be governed, so they never reach the server either.
    if (params.arguments !== undefined && !isRecord(params.arguments)) return this.deps.toClient(invalidArguments(id, tool));
    const input = params.arguments ?? {};
    const callId = String(id);
    const { governor, planner, recorder } = this.deps;
    const decided = governor.decide(tool, input);
    recorder.gateDecision({
      tool,
      decision: decided.decision,
      rule: decided.rule,
      mode: decided.mode,
      destructive: decided.destructive,
      call_id: callId,
      input_hash: decided.inputHash,
      ...(decided.reason ? { reason: decided.reason } : {}),
    });
    // Events first: once the client has the answer, what it says about the call is already on disk.
    const answer = (result: CallToolResult): void => {
      recorder.toolCall({ tool, ok: result.isError !== true, call_id: callId, input_hash: decided.inputHash });
      this.deps.toClient(resultMessage(id, result));
    };
    if (decided.decision !== 'allow') {
      this.deps.log(`${decided.decision} ${tool} (call ${callId}): ${decided.reason}`);
      if (decided.decision !== 'redact' || decided.redactedInput === undefined) return answer(toolErrorResult(refusalText(decided)));
      // A redaction forwards the redacted input; no fault touches it, since it is not an allow.
      this.pending.set(idKey(id), { kind: 'call', tool, inputHash: decided.inputHash, injects: [] });
      const request = JSON.parse(line) as Record<string, unknown>;
      return this.deps.toServer(encode({ ...request, params: { ...(request.params as object), arguments: decided.redactedInput } }));
    }
    // A task-augmented call answers with a task handle, not the tool's result: governed, never faulted.
    const plan = planner && params.task === undefined ? planner.planCall(tool) : null;
    if (plan) {
      for (const fault of plan.toolsetChanges) {
        recorder.faultInjected({ fault_index: fault.index, fault_id: fault.id, target: tool, call_id: callId, detail: describeChange(fault) });
        this.deps.toClient(toolListChangedNotification());
      }
      if (plan.removed) return answer(toolErrorResult(withCanary(unknownToolText(tool), planner!.canary)));
      if (plan.terminal) {
        const { fault } = plan.terminal;
        recorder.faultInjected({ fault_index: fault.index, fault_id: fault.id, target: tool, call_id: callId });
        return answer(
          plan.terminal.kind === 'tool.error'
            ? faultErrorResult(plan.terminal.message, planner!.canary)
            : staleResult(plan.terminal.result, this.deps.toolset.definition(tool)),
        );
      }
    }
    this.pending.set(idKey(id), { kind: 'call', tool, inputHash: decided.inputHash, injects: plan?.injects ?? [] });
    this.deps.toServer(line + '\n');
  }

  private callAnswered(id: RequestId, pending: Extract<Pending, { kind: 'call' }>, raw: Record<string, unknown>): Record<string, unknown> | undefined {
    const result = raw.result as Record<string, unknown> | undefined;
    const ok = raw.error === undefined && typeof result === 'object' && result !== null && result.isError !== true;
    let replaced: Record<string, unknown> | undefined;
    if (pending.injects.length > 0) {
      if (typeof result === 'object' && result !== null) {
        let injected = result;
        for (const { fault, payload } of pending.injects) {
          injected = injectPayload(injected, payload);
          this.deps.recorder.faultInjected({ fault_index: fault.index, fault_id: fault.id, target: pending.tool, call_id: String(id) });
        }
        replaced = { ...raw, result: injected };
      } else {
        for (const { fault } of pending.injects) this.deps.planner?.release(fault);
      }
    }
    this.deps.recorder.toolCall({ tool: pending.tool, ok, call_id: String(id), input_hash: pending.inputHash });
    return replaced;
  }

  private listAnswered(raw: Record<string, unknown>): Record<string, unknown> | undefined {
    const parsed = ListToolsResultSchema.safeParse(raw.result);
    if (!parsed.success) return undefined;
    const { toolset } = this.deps;
    toolset.remember(parsed.data);
    // Rewritten only after a change: before that the client gets the server's exact bytes.
    if (!toolset.changed) return undefined;
    const page = raw.result as Record<string, unknown>;
    return { ...raw, result: { ...page, tools: toolset.rewrite(parsed.data).tools } };
  }

  /** With a toolset change planned, advertise tools.listChanged so SDK clients act on the notification. */
  private initializeAnswered(raw: Record<string, unknown>): Record<string, unknown> | undefined {
    const result = raw.result as { capabilities?: { tools?: { listChanged?: boolean } } } | undefined;
    const tools = result?.capabilities?.tools;
    if (!this.deps.planner?.hasToolsetChange || typeof tools !== 'object' || tools === null || tools.listChanged === true) return undefined;
    return { ...raw, result: { ...result, capabilities: { ...result!.capabilities, tools: { ...tools, listChanged: true } } } };
  }

  private cancelled(params: unknown): void {
    const requestId = (params as { requestId?: unknown } | undefined)?.requestId;
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return;
    const pending = this.pending.get(idKey(requestId));
    if (pending?.kind !== 'call') return;
    // The server may still answer; the client ignores answers to cancelled requests, and so do we.
    this.pending.delete(idKey(requestId));
    for (const { fault } of pending.injects) this.deps.planner?.release(fault);
    this.deps.recorder.toolCall({ tool: pending.tool, ok: false, call_id: String(requestId), input_hash: pending.inputHash });
  }

  private tracked(item: unknown): boolean {
    const message = classify(item);
    return message.kind === 'response' && this.pending.has(idKey(message.id));
  }

  /** A line that is not JSON is not a protocol message: it never reaches the other side's stream. */
  private dropNonJson(from: 'client' | 'server', line: string): void {
    if (line.trim() === '') return;
    this.deps.log(`dropped a line from the ${from} that is not JSON: ${line.slice(0, 200)}`);
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The JSON-RPC error an SDK server gives a tools/call whose arguments fail its request schema. */
function invalidArguments(id: RequestId, tool: string): string {
  return encode({ jsonrpc: '2.0', id, error: { code: ErrorCode.InvalidParams, message: `Invalid arguments for tool ${tool}: arguments must be an object` } });
}

function describeChange(fault: PlanFault): string {
  const options = fault.options as { remove?: string[]; redefine?: { name: string }[] };
  const parts = [];
  if (options.remove?.length) parts.push(`removed ${options.remove.join(', ')}`);
  if (options.redefine?.length) parts.push(`redefined ${options.redefine.map((r) => r.name).join(', ')}`);
  return parts.join('; ') || 'no change';
}
