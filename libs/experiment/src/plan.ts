import { PLAN_SCHEMA_VERSION, type Plan } from '@intutic/faults';
import type { Experiment } from './model.ts';

/** The plan of one faulted repetition. Baseline repetitions run with no plan at all. */
export function compilePlan(experiment: Experiment, runId: string, canary: string): Plan {
  return {
    schema_version: PLAN_SCHEMA_VERSION,
    experiment: experiment.name,
    run_id: runId,
    canary,
    // A normalized fault is a plan fault (model.ts); a copy, so the plan never shares the experiment's objects.
    faults: experiment.faults.map((f) => structuredClone(f)),
  };
}
