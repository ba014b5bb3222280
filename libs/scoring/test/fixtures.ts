// Builders for scoring tests: an experiment, events as components write them, and repetition records
// whose facts come from feeding those events through a real RepetitionObserver.
import type { ChaosEvent, EventInput } from '@intutic/events';
import type { Experiment, NormalizedFault, NormalizedProbe } from '@intutic/experiment';
import { RepetitionObserver, type RepetitionRecord } from '../src/index.ts';

export const CANARY = 'E-INTUTIC-0badcafe';

export function experiment(over: { faults?: Partial<NormalizedFault>[]; probes: NormalizedProbe[]; repeat?: number }): Experiment {
  const faults = (over.faults ?? [{ id: 'tool.error', match: { tool: 'Bash' } }]).map((f, index) => ({
    index,
    id: f.id ?? 'tool.error',
    match: f.match ?? {},
    after_calls: f.after_calls ?? 0,
    times: f.times ?? null,
    options: f.options ?? {},
  }));
  return {
    name: 'scoring-test',
    description: '',
    agent: 'agent',
    verify: 'verify',
    repeat: over.repeat ?? 1,
    faults,
    probes: over.probes,
    abort: { destructive_attempt: true, cost_usd_above: 2, wall_clock_s_above: null },
    sandbox_image: null,
  };
}

let clock = 1_700_000_000_000;

/** An event as a component writes it; `ts` defaults to a clock that advances 1 ms per event. */
export function ev(input: EventInput): ChaosEvent {
  clock += 1;
  return { v: 1, ts: clock, ...input };
}

export const planLoaded = (source: 'proxy' | 'gate' | 'sdk' | 'mcp-proxy' | 'runner', faults: number[] = [0]): ChaosEvent =>
  ev({ type: 'plan_loaded', source, faults });
export const injected = (over: Partial<ChaosEvent & { type: 'fault_injected' }> = {}): ChaosEvent =>
  ev({ type: 'fault_injected', source: 'gate', fault_index: 0, fault_id: 'tool.error', target: 'Bash', ...over });
export const toolCall = (tool: string, ok: boolean | null, over: Record<string, unknown> = {}): ChaosEvent =>
  ev({ type: 'tool_call', source: 'gate', tool, ok, ...over });
export const decision = (over: Record<string, unknown>): ChaosEvent =>
  ev({ type: 'gate_decision', source: 'gate', tool: 'Bash', decision: 'allow', rule: null, mode: null, destructive: false, ...over });
export const llmCall = (cost_usd: number, over: Record<string, unknown> = {}): ChaosEvent =>
  ev({
    type: 'llm_call',
    source: 'proxy',
    provider: 'anthropic',
    endpoint: '/v1/messages',
    model: 'claude-sonnet-4-5',
    status: 200,
    stream: true,
    input_tokens: 10,
    output_tokens: 10,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    cost_usd,
    ...over,
  });

export interface RecordOver extends Partial<Omit<RepetitionRecord, 'facts'>> {
  events?: ChaosEvent[];
}

let nextIndex = 0;

export function record(exp: Experiment, over: RecordOver = {}): RepetitionRecord {
  const observer = new RepetitionObserver(exp);
  for (const event of over.events ?? []) observer.observe(event);
  const { events: _events, ...rest } = over;
  return {
    index: nextIndex++,
    kind: 'faulted',
    run_id: 'run',
    canary: CANARY,
    agent_exit_code: 0,
    verify_exit_code: 0,
    duration_s: 1,
    stdout_contains_canary: false,
    abort: null,
    error: null,
    malformed_event_lines: 0,
    ...rest,
    facts: observer.facts(),
  };
}

export const baseline = (exp: Experiment, over: RecordOver = {}): RepetitionRecord => record(exp, { kind: 'baseline', events: [llmCall(0.1)], ...over });

/** The events of a faulted repetition in which the fault fired once, seen by its injector. */
export const fired = (...more: ChaosEvent[]): ChaosEvent[] => [planLoaded('gate'), injected(), ...more];
