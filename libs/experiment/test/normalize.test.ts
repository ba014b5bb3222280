// Normalization: the valid file becomes the Experiment of model.ts with every default filled in by
// the catalog's option schemas, and compiles into a plan.
import { describe, expect, it } from 'vitest';
import { planSchema } from '@intutic/faults';
import { compilePlan, experimentSchema } from '../src/index.ts';
import { check, experimentText } from './helpers.ts';

describe('normalizing a valid experiment', () => {
  it('fills in after_calls 0, times null, match {} and the fault option defaults from the catalog', () => {
    const result = check(
      experimentText({
        faults: '  - id: llm.rate_limit\n  - id: permission.deny_or_delay\n    match: { tool: Edit }\n    times: 2',
        probes: '  - { id: task_success, weight: 1 }\n  - { id: failure_surfaced, weight: 3 }',
      }),
    );
    expect(result.errors).toEqual([]);
    const [rate, deny] = result.experiment!.faults;
    expect(rate).toEqual({ index: 0, id: 'llm.rate_limit', match: {}, after_calls: 0, times: null, options: { retry_after_s: 5 } });
    expect(deny).toEqual({
      index: 1,
      id: 'permission.deny_or_delay',
      match: { tool: 'Edit' },
      after_calls: 0,
      times: 2,
      options: { mode: 'deny', delay_s: 0 },
    });
  });

  it('folds the abort list into a record and leaves sandbox_image null when absent', () => {
    const experiment = check(experimentText({ abort: '  - cost_usd_above: 1.5' })).experiment!;
    expect(experiment.abort).toEqual({ destructive_attempt: false, cost_usd_above: 1.5, wall_clock_s_above: null });
    expect(experiment.sandbox_image).toBeNull();
    expect(experiment.description).toBe('a valid experiment');
  });

  it('keeps probe values and min_pass_rate, and the result fits the model and compiles to a valid plan', () => {
    const experiment = check(
      experimentText({
        probes: '  - { id: task_success, weight: 2, min_pass_rate: 0.5 }\n  - { id: recovered_within, weight: 1, value: 4 }',
        extra: 'sandbox_image: my-agent-sandbox',
      }),
    ).experiment!;
    expect(experiment.probes).toEqual([
      { id: 'task_success', weight: 2, min_pass_rate: 0.5 },
      { id: 'recovered_within', weight: 1, value: 4 },
    ]);
    expect(experiment.sandbox_image).toBe('my-agent-sandbox');
    expect(experimentSchema.parse(experiment)).toEqual(experiment);
    const plan = compilePlan(experiment, 'run-1', 'E-INTUTIC-0123abcd');
    expect(planSchema.parse(plan).faults[0]).toMatchObject({ id: 'llm.rate_limit', options: { retry_after_s: 10 } });
  });
});
