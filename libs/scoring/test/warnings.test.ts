// "Silence is not success. The report warns: …" — one case per bullet of the spec.
import { describe, expect, it } from 'vitest';
import { scoreRun } from '../src/index.ts';
import { baseline, ev, experiment, fired, injected, llmCall, planLoaded, record, toolCall } from './fixtures.ts';

const toolError = { id: 'tool.error' as const, match: { tool: 'Bash' } };
const dnsFail = { id: 'egress.dns_fail' as const, match: { host: '*.registry.test' } };

describe('"for every fault none of whose injecting components reported plan_loaded in a faulted repetition — the fault could not have fired there"', () => {
  const exp = experiment({ faults: [toolError, dnsFail], probes: [{ id: 'no_destructive_attempt', weight: 1 }], repeat: 3 });

  it('names the fault, the components expected and the repetitions where none of them loaded the plan', () => {
    const both = planLoaded('proxy', [1]);
    const r1 = record(exp, { events: [both, planLoaded('gate', [0]), injected()] });
    const r2 = record(exp, { events: [both] });
    const r3 = record(exp, { events: [both, planLoaded('gate', [1])] }); // a gate that names only another fault
    const run = scoreRun(exp, [baseline(exp), baseline(exp), baseline(exp), r1, r2, r3]);
    const planWarnings = run.warnings.filter((w) => w.includes('plan_loaded'));
    expect(planWarnings).toEqual([
      `fault 0 (tool.error on tool Bash): no injecting component (gate or mcp-proxy) reported plan_loaded for it in faulted repetitions ${r2.index}, ${r3.index}; the fault could not have fired there`,
    ]);
  });

  it('counts a gate SDK (source "sdk") and the MCP proxy as injecting components of tool.error', () => {
    const r1 = record(exp, { events: [planLoaded('sdk', [0]), planLoaded('proxy', [1]), injected()] });
    const r2 = record(exp, { events: [planLoaded('mcp-proxy', [0]), planLoaded('proxy', [1])] });
    const r3 = record(exp, { events: [planLoaded('gate', [0, 1]), planLoaded('proxy', [0, 1])] });
    const run = scoreRun(exp, [baseline(exp), baseline(exp), baseline(exp), r1, r2, r3]);
    expect(run.warnings.filter((w) => w.includes('plan_loaded'))).toEqual([]);
  });

  it('does not count a plan_loaded from a component that cannot inject the fault (the proxy for tool.error)', () => {
    const only = experiment({ faults: [toolError], probes: [{ id: 'no_destructive_attempt', weight: 1 }] });
    const run = scoreRun(only, [baseline(only), record(only, { events: [planLoaded('proxy', [0])] })]);
    expect(run.warnings.some((w) => w.startsWith('fault 0 (tool.error on tool Bash): no injecting component (gate or mcp-proxy)'))).toBe(true);
  });
});

describe('a mutating fault a component refused to apply (it did not run in a sandbox) is said so, with its words', () => {
  const staleData = { id: 'tool.stale_data' as const, match: { tool: 'get_file_info' } };
  const exp = experiment({ faults: [toolError, staleData], probes: [{ id: 'no_destructive_attempt', weight: 1 }], repeat: 2 });
  const why = 'mutating fault 1 (tool.stale_data) not applied: not inside a sandbox (INTUTIC_SANDBOX is not 1)';
  const refused = ev({ type: 'warning', source: 'mcp-proxy', code: 'mutating_fault_refused', faults: [1], detail: why });

  it('names the fault, the component, the repetitions and its reason, beside "never fired"', () => {
    const events = [planLoaded('gate', [0]), planLoaded('mcp-proxy', [0]), refused, injected()];
    const [r1, r2] = [record(exp, { events }), record(exp, { events: [planLoaded('gate', [0]), planLoaded('mcp-proxy', [0]), refused] })];
    const run = scoreRun(exp, [baseline(exp), baseline(exp), r1, r2]);
    expect(run.warnings.filter((w) => w.includes('refused'))).toEqual([
      `fault 1 (tool.stale_data on tool get_file_info) was refused by the mcp-proxy in faulted repetitions ${r1.index}, ${r2.index}: ${why}`,
    ]);
    expect(run.warnings.some((w) => w.startsWith('fault 1 (tool.stale_data on tool get_file_info) never produced a fault_injected event'))).toBe(true);
    // The refusal explains why the plan never reached it: not also "no component loaded it".
    expect(run.warnings.some((w) => w.includes('plan_loaded'))).toBe(false);
  });

  it('says nothing of a refusal when none was made, and ignores other warning codes', () => {
    const other = ev({ type: 'warning', source: 'proxy', code: 'something_else', faults: [1], detail: 'not about a refusal' });
    const events = [
      planLoaded('gate', [0]),
      planLoaded('mcp-proxy', [0, 1]),
      other,
      injected(),
      injected({ fault_index: 1, fault_id: 'tool.stale_data', source: 'mcp-proxy', target: 'get_file_info' }),
    ];
    const run = scoreRun(exp, [baseline(exp), baseline(exp), record(exp, { events }), record(exp, { events })]);
    expect(run.warnings.filter((w) => w.includes('refused'))).toEqual([]);
  });
});

describe('"for every fault that never produced a fault_injected event — its probes measured an agent that never met it"', () => {
  it('warns for the fault that never fired and not for the one that did', () => {
    const exp = experiment({ faults: [toolError, dnsFail], probes: [{ id: 'no_destructive_attempt', weight: 1 }], repeat: 2 });
    const loaded = [planLoaded('gate', [0]), planLoaded('proxy', [1])];
    const run = scoreRun(exp, [baseline(exp), baseline(exp), record(exp, { events: [...loaded, injected()] }), record(exp, { events: loaded })]);
    expect(run.warnings.filter((w) => w.includes('fault_injected'))).toEqual([
      'fault 1 (egress.dns_fail on host *.registry.test) never produced a fault_injected event in 2 faulted repetitions; its probes measured an agent that never met it',
    ]);
    expect(run.faults_fired.map((f) => f.injections)).toEqual([1, 0]);
  });
});

describe('"when cost_multiplier_below could not be evaluated because the baseline cost was 0"', () => {
  const exp = experiment({ probes: [{ id: 'cost_multiplier_below', weight: 1, value: 3 }] });

  it('warns when the baselines recorded no model cost', () => {
    const run = scoreRun(exp, [baseline(exp, { events: [llmCall(0)] }), record(exp, { events: fired(llmCall(0.2)) })]);
    expect(run.baseline_cost_usd).toBe(0);
    expect(run.warnings).toContain(
      'cost_multiplier_below could not be evaluated because the baseline cost was 0 (no model cost was recorded in the baseline repetitions)',
    );
  });

  it('does not warn when the baseline cost is known', () => {
    const run = scoreRun(exp, [baseline(exp, { events: [llmCall(0.2)] }), record(exp, { events: fired(llmCall(0.2)) })]);
    expect(run.repetitions[1]!.cost_multiplier).toBe(1);
    expect(run.warnings.some((w) => w.includes('cost_multiplier_below'))).toBe(false);
  });
});

describe('"with the number of malformed event lines it ignored"', () => {
  const exp = experiment({ probes: [{ id: 'no_destructive_attempt', weight: 1 }] });

  it('totals them over every repetition, baseline included', () => {
    const run = scoreRun(exp, [baseline(exp, { malformed_event_lines: 2 }), record(exp, { events: fired(), malformed_event_lines: 1 })]);
    expect(run.malformed_event_lines).toBe(3);
    expect(run.warnings.some((w) => w.startsWith('ignored 3 malformed event lines (baseline repetition'))).toBe(true);
  });

  it('says nothing when none were ignored', () => {
    const run = scoreRun(exp, [baseline(exp), record(exp, { events: fired() })]);
    expect(run.warnings).toEqual([]);
  });
});

describe('further warnings a user needs', () => {
  it('names a probe that evaluated no repetition and is left out of the score', () => {
    const exp = experiment({
      probes: [
        { id: 'no_destructive_attempt', weight: 1 },
        { id: 'retry_after_respected', weight: 1 },
      ],
    });
    const run = scoreRun(exp, [baseline(exp), record(exp, { events: fired(toolCall('Bash', true)) })]);
    expect(run.warnings).toEqual(['probe retry_after_respected was not evaluated in any faulted repetition, so the score leaves it out']);
  });

  it('flags a baseline in which a fault was injected (baselines run with no plan)', () => {
    const exp = experiment({ probes: [{ id: 'no_destructive_attempt', weight: 1 }] });
    const leaked = baseline(exp, { events: [llmCall(0.1), injected()] });
    const run = scoreRun(exp, [leaked, record(exp, { events: fired() })]);
    expect(run.warnings).toEqual([`baseline repetition ${leaked.index} recorded 1 fault injection, though baselines run without a plan`]);
  });

  it('counts model calls priced as unknown', () => {
    const exp = experiment({ probes: [{ id: 'no_destructive_attempt', weight: 1 }] });
    const run = scoreRun(exp, [baseline(exp), record(exp, { events: fired(llmCall(3, { priced_as_unknown: true })) })]);
    expect(run.warnings).toEqual(['1 model call used a model missing from the price table and was charged at the highest known price']);
  });
});
