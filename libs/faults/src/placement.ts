// Where a mutating fault may apply (spec, Safety rules: mutating faults never run outside a sandbox).
// Each injecting component asks once, when it loads a plan, and keeps only what it may apply here:
// - the MCP proxy and the gates run inside the repetition's sandbox. There the entrypoint, as root
//   before it drops to the unprivileged agent user, writes SANDBOX_MARKER_PATH (a root-owned file
//   no one else may write) and sets INTUTIC_SANDBOX=1. The agent cannot make that file, and a host
//   user cannot trip it by accident (it takes root to write under /run, and the variable too);
// - the governance proxy runs on the host but serves a sandboxed agent. The runner that starts it for
//   a repetition sets REPETITION_ENV to the plan's run id: an internal variable naming that run, not
//   something an `intutic start --plan` by hand has.
// Fail-safe faults apply anywhere. A mutating fault refused here is said (log, stderr, a `warning`
// event) and injected nowhere.
// No zod here (the gates import this file alone, as they do match.ts and seal.ts).
import { lstatSync, type Stats } from 'node:fs';
import type { Plan, PlanFault } from './plan.ts';

export const SANDBOX_MARKER_PATH = '/run/intutic/sandbox';
export const SANDBOX_ENV = 'INTUTIC_SANDBOX';
export const REPETITION_ENV = 'INTUTIC_REPETITION_RUN_ID';
/** The `code` of the warning event a component writes when it refuses the plan's mutating faults. */
export const MUTATING_REFUSED = 'mutating_fault_refused';
/** The catalog's mutating faults (safety: mutating); a unit test holds this to catalog.ts. */
export const MUTATING_FAULT_IDS: ReadonlySet<string> = new Set([
  'llm.context_trim',
  'llm.model_degrade',
  'tool.stale_data',
  'mcp.toolset_change',
  'inject.tool_result',
]);

export interface Placement {
  /** May this component apply mutating faults here? */
  mutatingAllowed: boolean;
  /** Where it runs, in words, for its log. */
  why: string;
}

/** Inside a repetition's sandbox: the entrypoint's variable and its root-owned marker file. */
export function sandboxPlacement(env: NodeJS.ProcessEnv, stat: (path: string) => Stats = lstatSync): Placement {
  if (env[SANDBOX_ENV] !== '1') return { mutatingAllowed: false, why: `not inside a sandbox (${SANDBOX_ENV} is not 1)` };
  let info: Stats;
  try {
    info = stat(SANDBOX_MARKER_PATH);
  } catch {
    return { mutatingAllowed: false, why: `not inside a sandbox (${SANDBOX_MARKER_PATH}, which the sandbox's entrypoint writes, is missing)` };
  }
  if (!info.isFile() || info.uid !== 0 || (info.mode & 0o022) !== 0) {
    return { mutatingAllowed: false, why: `not inside a sandbox (${SANDBOX_MARKER_PATH} is not a root-owned file that only root may write)` };
  }
  return { mutatingAllowed: true, why: 'inside a repetition sandbox' };
}

/** The governance proxy: started by the runner for the repetition this plan is for. */
export function repetitionProxyPlacement(env: NodeJS.ProcessEnv, plan: Pick<Plan, 'run_id'>): Placement {
  const named = env[REPETITION_ENV];
  if (named === plan.run_id) return { mutatingAllowed: true, why: `started by the runner for repetition ${plan.run_id}` };
  return {
    mutatingAllowed: false,
    why: named ? `started for run ${named}, not for this plan's run ${plan.run_id}` : 'not started by the runner for a repetition (outside a sandbox)',
  };
}

export function isMutating(fault: Pick<PlanFault, 'id'>): boolean {
  return MUTATING_FAULT_IDS.has(fault.id);
}

/** The plan with what may apply here, and the mutating faults left out (none when allowed). */
export function applicablePlan(plan: Plan, placement: Placement): { plan: Plan; refused: PlanFault[] } {
  if (placement.mutatingAllowed) return { plan, refused: [] };
  const refused = plan.faults.filter(isMutating);
  return { plan: { ...plan, faults: plan.faults.filter((f) => !isMutating(f)) }, refused };
}

/** One line for the log, stderr and the warning event's detail. */
export function refusalMessage(component: string, refused: readonly PlanFault[], placement: Placement): string {
  const list = refused.map((f) => `${f.index}:${f.id}`).join(', ');
  return `${component}: mutating fault(s) ${list} not applied: ${placement.why}; mutating faults apply only for a repetition inside its sandbox (intutic chaos run); fail-safe faults still apply`.slice(
    0,
    500,
  );
}
