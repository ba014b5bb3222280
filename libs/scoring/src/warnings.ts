// "Silence is not success": the report's warnings. A component that never loaded the plan, a fault
// that never fired, a cost baseline of 0 and ignored event lines all make a score mean less than it
// seems, and the user must be told so in words that name the fault, the component and the repetition.
import { getFault, type Injector } from '@intutic/faults';
import type { Component } from '@intutic/events';
import type { Experiment, NormalizedFault } from '@intutic/experiment';
import { injectionCount, type RepetitionRecord } from './records.ts';

/** The injector a reporting component stands for: the in-process gate SDKs are gates. */
const INJECTOR_OF: Record<Component, Injector | null> = { proxy: 'proxy', gate: 'gate', sdk: 'gate', 'mcp-proxy': 'mcp-proxy', runner: null };

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
const repList = (records: readonly RepetitionRecord[]): string =>
  `faulted repetition${records.length === 1 ? '' : 's'} ${records.map((r) => r.index).join(', ')}`;

export function describeFault(fault: NormalizedFault): string {
  const match = Object.entries(fault.match).map(([key, value]) => `${key} ${value}`);
  return `fault ${fault.index} (${fault.id}${match.length > 0 ? ` on ${match.join(', ')}` : ''})`;
}

/** Did one of the fault's injecting components report plan_loaded naming it in this repetition? */
export function planReached(fault: NormalizedFault, record: RepetitionRecord): boolean {
  const injectors = getFault(fault.id).injectedBy;
  return record.facts.plan_loaded.some((p) => {
    const injector = INJECTOR_OF[p.source];
    return injector !== null && injectors.includes(injector) && p.faults.includes(fault.index);
  });
}

export interface WarningInput {
  experiment: Experiment;
  /** Every record, for the counts of ignored lines and unknown prices. */
  records: readonly RepetitionRecord[];
  /** The faulted repetitions that ran (empty when a failed baseline skipped them). */
  faulted: readonly RepetitionRecord[];
  baselineCostUsd: number | null;
  /** Probes that evaluated no repetition, so the score leaves them out. */
  unevaluatedProbes: readonly string[];
}

export function silenceWarnings(input: WarningInput): string[] {
  const { experiment, records, faulted } = input;
  const warnings: string[] = [];

  for (const fault of experiment.faults) {
    // A mutating fault a component refused (it did not run in a sandbox) is said so, with its words.
    const refusal = faulted.flatMap((r) => r.facts.refused.filter((f) => f.faults.includes(fault.index)))[0];
    const unseen = faulted.filter((r) => !planReached(fault, r));
    if (unseen.length === 0 && !refusal) continue;
    if (refusal) {
      const where = faulted.filter((r) => r.facts.refused.some((f) => f.faults.includes(fault.index)));
      warnings.push(`${describeFault(fault)} was refused by the ${refusal.source} in ${repList(where)}: ${refusal.detail}`);
      continue;
    }
    const components = getFault(fault.id).injectedBy.join(' or ');
    warnings.push(
      `${describeFault(fault)}: no injecting component (${components}) reported plan_loaded for it in ${repList(unseen)}; ` +
        'the fault could not have fired there',
    );
  }

  if (faulted.length > 0) {
    for (const fault of experiment.faults) {
      const fired = faulted.some((r) => r.facts.injections.some((i) => i.fault_index === fault.index && i.count > 0));
      if (!fired) {
        warnings.push(
          `${describeFault(fault)} never produced a fault_injected event in ${plural(faulted.length, 'faulted repetition')}; ` +
            'its probes measured an agent that never met it',
        );
      }
    }
    const unknown = faulted.filter((r) => r.facts.unknown_fault_injections > 0);
    if (unknown.length > 0) {
      const n = unknown.reduce((sum, r) => sum + r.facts.unknown_fault_injections, 0);
      warnings.push(`${plural(n, 'fault_injected event')} named a fault index this experiment does not have (${repList(unknown)})`);
    }
  }

  if (faulted.length > 0 && experiment.probes.some((p) => p.id === 'cost_multiplier_below')) {
    if (input.baselineCostUsd === 0) {
      warnings.push('cost_multiplier_below could not be evaluated because the baseline cost was 0 (no model cost was recorded in the baseline repetitions)');
    } else if (input.baselineCostUsd === null) {
      warnings.push('cost_multiplier_below could not be evaluated because no baseline repetition completed, so there is no baseline cost');
    }
  }

  // Baselines run without a plan; an injection there means a plan leaked and the cost baseline is off.
  for (const r of records.filter((b) => b.kind === 'baseline' && injectionCount(b.facts) > 0)) {
    warnings.push(`baseline repetition ${r.index} recorded ${plural(injectionCount(r.facts), 'fault injection')}, though baselines run without a plan`);
  }

  const malformed = records.filter((r) => r.malformed_event_lines > 0);
  if (malformed.length > 0) {
    const total = malformed.reduce((sum, r) => sum + r.malformed_event_lines, 0);
    const per = malformed.map((r) => `${r.kind} repetition ${r.index}: ${r.malformed_event_lines}`).join(', ');
    warnings.push(`ignored ${plural(total, 'malformed event line')} (${per})`);
  }

  const unknownPrice = records.reduce((sum, r) => sum + r.facts.priced_as_unknown_calls, 0);
  if (unknownPrice > 0) {
    const were = unknownPrice === 1 ? 'was' : 'were';
    warnings.push(`${plural(unknownPrice, 'model call')} used a model missing from the price table and ${were} charged at the highest known price`);
  }

  if (faulted.length > 0) {
    for (const id of input.unevaluatedProbes) {
      warnings.push(`probe ${id} was not evaluated in any faulted repetition, so the score leaves it out`);
    }
  }
  return warnings;
}
