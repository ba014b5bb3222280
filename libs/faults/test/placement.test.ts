// Where mutating faults may apply: the catalog's mutating set, the sandbox marker, the repetition proxy.
import type { Stats } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  applicablePlan,
  FAULTS,
  MUTATING_FAULT_IDS,
  REPETITION_ENV,
  repetitionProxyPlacement,
  SANDBOX_ENV,
  SANDBOX_MARKER_PATH,
  sandboxPlacement,
  type Plan,
} from '../src/index.ts';

const plan: Plan = {
  schema_version: 1,
  experiment: 'e',
  run_id: 'run-1',
  canary: 'E-INTUTIC-0000abcd',
  faults: [
    { index: 0, id: 'llm.context_trim', match: {}, after_calls: 0, times: 1, options: {} },
    { index: 1, id: 'llm.rate_limit', match: {}, after_calls: 0, times: 1, options: {} },
    { index: 2, id: 'inject.tool_result', match: {}, after_calls: 0, times: 1, options: { payload: 'x' } },
  ],
};
const marker =
  (over: Partial<{ file: boolean; uid: number; mode: number }> = {}) =>
  (path: string): Stats => {
    expect(path).toBe(SANDBOX_MARKER_PATH);
    return { isFile: () => over.file ?? true, uid: over.uid ?? 0, mode: over.mode ?? 0o100444 } as Stats;
  };
const missing = (): Stats => {
  throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
};

describe('placement', () => {
  it("holds the catalog's safety column", () => {
    expect([...MUTATING_FAULT_IDS].sort()).toEqual(
      FAULTS.filter((f) => f.safety === 'mutating')
        .map((f) => f.id)
        .sort(),
    );
  });

  it('inside a sandbox only with the variable and a root-owned marker only root may write', () => {
    expect(sandboxPlacement({ [SANDBOX_ENV]: '1' }, marker()).mutatingAllowed).toBe(true);
    expect(sandboxPlacement({}, marker()).mutatingAllowed).toBe(false);
    expect(sandboxPlacement({ [SANDBOX_ENV]: '1' }, missing).why).toMatch(/missing/);
    expect(sandboxPlacement({ [SANDBOX_ENV]: '1' }, marker({ uid: 1000 })).mutatingAllowed).toBe(false);
    expect(sandboxPlacement({ [SANDBOX_ENV]: '1' }, marker({ mode: 0o100666 })).mutatingAllowed).toBe(false);
    expect(sandboxPlacement({ [SANDBOX_ENV]: '1' }, marker({ file: false })).mutatingAllowed).toBe(false);
  });

  it("a proxy applies them only for the repetition the runner named, this plan's run", () => {
    expect(repetitionProxyPlacement({ [REPETITION_ENV]: 'run-1' }, plan).mutatingAllowed).toBe(true);
    expect(repetitionProxyPlacement({}, plan).mutatingAllowed).toBe(false);
    expect(repetitionProxyPlacement({ [REPETITION_ENV]: 'run-2' }, plan).why).toMatch(/run-2/);
  });

  it('outside, leaves the mutating faults out and keeps the fail-safe ones', () => {
    const here = applicablePlan(plan, { mutatingAllowed: false, why: 'host' });
    expect(here.plan.faults.map((f) => f.id)).toEqual(['llm.rate_limit']);
    expect(here.refused.map((f) => f.index)).toEqual([0, 2]);
    expect(applicablePlan(plan, { mutatingAllowed: true, why: 'sandbox' })).toEqual({ plan, refused: [] });
  });
});
