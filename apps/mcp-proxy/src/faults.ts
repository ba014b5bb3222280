// Which planned faults hit a tools/call. Only calls governance allowed reach here, so a fault can
// fail or change an allowed call but never let a blocked one through. Each fault counts its own
// matching calls (after_calls, times); mcp.toolset_change fires once, on the first matching call
// past after_calls, and takes effect before that call is handled.
import { readFileSync } from 'node:fs';
import { IntuticError } from '@intutic/errors';
import {
  ENV,
  emptyCounter,
  countMatchingCall,
  faultMatches,
  faultsInjectedBy,
  getFault,
  parsePlan,
  splitMcpToolName,
  type FaultCounter,
  type Plan,
  type PlanFault,
} from '@intutic/faults';
import { Toolset, type ToolsetChange } from './toolset.ts';

export type TerminalFault = { fault: PlanFault; kind: 'tool.error'; message: string } | { fault: PlanFault; kind: 'tool.stale_data'; result: unknown };

export interface CallPlan {
  /** mcp.toolset_change faults this call triggered (the toolset has already changed). */
  toolsetChanges: PlanFault[];
  /** The tool no longer exists for the client: the call fails as an unknown tool would. */
  removed: boolean;
  /** tool.error or tool.stale_data: the proxy answers and the server is not called. */
  terminal?: TerminalFault;
  /** inject.tool_result faults whose payload goes into the real result. */
  injects: { fault: PlanFault; payload: string }[];
}

/** Read and validate the plan INTUTIC_CHAOS_PLAN names; null when none is set (a baseline run). */
export function loadPlan(env: NodeJS.ProcessEnv): Plan | null {
  const path = env[ENV.plan];
  if (!path) return null;
  try {
    return parsePlan(JSON.parse(readFileSync(path, 'utf8')));
  } catch (error) {
    throw new IntuticError('E_PLAN_INVALID', `cannot use the chaos plan at ${path}: ${error instanceof Error ? error.message : String(error)}`, {
      hints: [`${ENV.plan} must name a plan file compiled by intutic chaos run`],
      cause: error,
    });
  }
}

const MCP_FAULTS = new Set<string>(faultsInjectedBy('mcp-proxy'));

export class FaultPlanner {
  readonly plan: Plan;
  readonly server: string;
  readonly toolset: Toolset;
  /** The plan's faults this proxy can inject: its kinds, and not aimed at another server's tools. */
  readonly faults: readonly PlanFault[];
  private readonly options = new Map<number, Record<string, unknown>>();
  private readonly counters = new Map<number, FaultCounter>();
  private readonly fired = new Set<number>();

  constructor(plan: Plan, server: string, toolset: Toolset) {
    this.plan = plan;
    this.server = server;
    this.toolset = toolset;
    this.faults = plan.faults.filter((f) => isMcpProxyFault(f, server));
    for (const fault of this.faults) {
      const parsed = getFault(fault.id).options.safeParse(fault.options);
      if (!parsed.success) throw new IntuticError('E_PLAN_INVALID', `fault ${fault.index} (${fault.id}) has invalid options: ${parsed.error.message}`);
      this.options.set(fault.index, parsed.data);
      this.counters.set(fault.index, emptyCounter());
    }
  }

  get canary(): string {
    return this.plan.canary;
  }

  get hasToolsetChange(): boolean {
    return this.faults.some((f) => f.id === 'mcp.toolset_change');
  }

  /** Count one allowed call to `tool` against every fault and say what to do with it. */
  planCall(tool: string): CallPlan {
    const plan: CallPlan = { toolsetChanges: [], removed: false, injects: [] };
    const target = { tool, server: this.server };
    for (const fault of this.faults) {
      if (fault.id !== 'mcp.toolset_change' || this.fired.has(fault.index) || !faultMatches(fault.match, target)) continue;
      if (this.count(fault, true)) {
        this.fired.add(fault.index);
        this.toolset.apply(this.options.get(fault.index) as unknown as ToolsetChange);
        plan.toolsetChanges.push(fault);
      }
    }
    if (this.toolset.isRemoved(tool)) {
      plan.removed = true;
      return plan;
    }
    for (const fault of this.faults) {
      if (fault.id === 'mcp.toolset_change' || !faultMatches(fault.match, target)) continue;
      const options = this.options.get(fault.index)!;
      if (fault.id === 'inject.tool_result') {
        if (this.count(fault, plan.terminal === undefined)) plan.injects.push({ fault, payload: options.payload as string });
      } else if (this.count(fault, plan.terminal === undefined && plan.injects.length === 0)) {
        plan.terminal =
          fault.id === 'tool.error'
            ? { fault, kind: 'tool.error', message: options.message as string }
            : { fault, kind: 'tool.stale_data', result: options.result };
      }
    }
    return plan;
  }

  /** An injection that could not be delivered (the server answered with a protocol error) is not spent. */
  release(fault: PlanFault): void {
    const counter = this.counters.get(fault.index);
    if (counter && counter.injected > 0) this.counters.set(fault.index, { ...counter, injected: counter.injected - 1 });
  }

  /** Count a matching call; an injection the call cannot take (another fault already answered it) is not spent. */
  private count(fault: PlanFault, applicable: boolean): boolean {
    const counter = this.counters.get(fault.index)!;
    const { inject, next } = countMatchingCall(fault, counter);
    const take = inject && applicable;
    this.counters.set(fault.index, take ? next : { ...next, injected: counter.injected });
    return take;
  }
}

/** A fault whose match.tool is `mcp__other__tool` can never fire on this server. */
/** A fault this proxy, serving `server`, would inject: its kind, and not aimed at another server's tools. */
export function isMcpProxyFault(fault: PlanFault, server: string): boolean {
  return MCP_FAULTS.has(fault.id) && !aimedElsewhere(fault, server);
}

function aimedElsewhere(fault: PlanFault, server: string): boolean {
  const split = fault.match.tool === undefined ? null : splitMcpToolName(fault.match.tool);
  return split !== null && split.server !== server;
}
