// Reading the plan in a gate without zod: the runner compiled and validated it, so the gate checks
// only what it relies on and fails closed (an error) on anything else. The file's canary is sealed
// (or literal, from older runners); the gate unseals it to put it in the errors it injects.
import { readFileSync } from 'node:fs';
import { IntuticError } from '@intutic/errors';
import type { Plan, PlanFault } from '@intutic/faults';
import { unsealCanary } from '@intutic/faults/seal';

/** The faults a gate injects; tool.error only for built-in tools (the MCP proxy owns MCP tools). */
export const GATE_FAULTS = new Set(['tool.error', 'permission.deny_or_delay']);

export function readPlan(path: string): Plan {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new IntuticError(missing ? 'E_FILE_NOT_FOUND' : 'E_PLAN_INVALID', `cannot read the chaos plan ${path}: ${(error as Error).message}`);
  }
  const plan = raw as Plan;
  const ok =
    typeof plan === 'object' &&
    plan !== null &&
    plan.schema_version === 1 &&
    typeof plan.run_id === 'string' &&
    typeof plan.canary === 'string' &&
    Array.isArray(plan.faults) &&
    plan.faults.every(
      (f: PlanFault) =>
        typeof f === 'object' &&
        Number.isInteger(f.index) &&
        typeof f.id === 'string' &&
        typeof f.match === 'object' &&
        f.match !== null &&
        Number.isInteger(f.after_calls) &&
        (f.times === null || Number.isInteger(f.times)) &&
        typeof f.options === 'object',
    );
  if (!ok) throw new IntuticError('E_PLAN_INVALID', `the chaos plan ${path} is not a plan this gate understands (schema_version 1)`);
  return { ...plan, canary: unsealCanary(plan.canary) };
}

export function gateFaultIndexes(plan: Plan): number[] {
  return plan.faults.filter((f) => GATE_FAULTS.has(f.id)).map((f) => f.index);
}
