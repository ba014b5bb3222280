import { PLAN_SCHEMA_VERSION, type Plan } from '@intutic/faults';
import type { Experiment } from './model.ts';

/** The plan of one faulted repetition. Baseline repetitions run with no plan at all. */
export function compilePlan(experiment: Experiment, runId: string, canary: string): Plan {
  return {
    schema_version: PLAN_SCHEMA_VERSION,
    experiment: experiment.name,
    run_id: runId,
    canary,
    faults: experiment.faults.map((f) => ({
      index: f.index,
      id: f.id,
      match: { ...f.match },
      after_calls: f.after_calls,
      times: f.times,
      options: structuredClone(f.options),
    })),
  };
}
