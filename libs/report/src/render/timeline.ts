// One repetition's events as a timeline a person can read: faults, tool calls, gate decisions, model
// calls with their cost (and the running total), egress, aborts. Pure: the caller reads the events
// file (see readTimelines in write.ts); this orders the events and says what each one was.
import type { ChaosEvent } from '@intutic/events';
import type { ReportRepetition } from '../schema.ts';

export type TimelineKind = 'plan' | 'fault' | 'model' | 'tool' | 'gate' | 'egress' | 'abort';
/** How the page colours an entry: bad (a fault, an abort, a destructive call), warn (a refusal, a failed call). */
export type TimelineTone = 'bad' | 'warn' | 'ok' | 'info';

export interface TimelineEntry {
  /** Milliseconds since the repetition's first event. */
  offset_ms: number;
  kind: TimelineKind;
  tone: TimelineTone;
  source: string;
  title: string;
  detail: string | null;
  /** Model calls: this call's cost and the repetition's total so far. */
  cost_usd: number | null;
  cumulative_cost_usd: number | null;
}

/** What was read from a repetition's events file, or why nothing was. */
export type RepetitionEvents = { status: 'read'; events: readonly ChaosEvent[]; malformed: number; omitted: number } | { status: 'missing'; reason: string };

/** Repetitions are keyed by kind and index: run ids are unique too, but a key a person can read helps. */
export type EventsByRepetition = ReadonlyMap<string, RepetitionEvents>;

export function repetitionKey(rep: Pick<ReportRepetition, 'kind' | 'index'>): string {
  return `${rep.kind}-${rep.index}`;
}

const joinDetail = (...parts: (string | null | undefined | false)[]): string | null => {
  const kept = parts.filter((p): p is string => typeof p === 'string' && p !== '');
  return kept.length === 0 ? null : kept.join(' · ');
};

function describe(event: ChaosEvent): Omit<TimelineEntry, 'offset_ms' | 'source' | 'cost_usd' | 'cumulative_cost_usd'> {
  switch (event.type) {
    case 'plan_loaded':
      return {
        kind: 'plan',
        tone: 'info',
        title: `plan loaded (faults ${event.faults.length === 0 ? 'none' : event.faults.map((f) => `#${f}`).join(', ')})`,
        detail: joinDetail(event.detail),
      };
    case 'fault_injected':
      return {
        kind: 'fault',
        tone: 'bad',
        title: `fault #${event.fault_index} ${event.fault_id} → ${event.target}`,
        detail: joinDetail(
          event.retry_after_s !== undefined && `retry after ${event.retry_after_s} s`,
          event.hold_id && `hold ${event.hold_id}`,
          event.call_id && `call ${event.call_id}`,
          event.detail,
        ),
      };
    case 'llm_call': {
      const tokens = `${event.input_tokens} in / ${event.output_tokens} out tokens${event.cache_read_input_tokens ? `, ${event.cache_read_input_tokens} cache read` : ''}`;
      return {
        kind: 'model',
        tone: event.status >= 400 ? 'warn' : 'info',
        title: `model ${event.model} → ${event.status}`,
        detail: joinDetail(
          `${event.provider} ${event.endpoint}`,
          event.stream && 'stream',
          tokens,
          event.duration_ms !== undefined && `${Math.round(event.duration_ms)} ms`,
          event.priced_as_unknown && 'priced as unknown model',
        ),
      };
    }
    case 'tool_call':
      return {
        kind: 'tool',
        tone: event.ok ? 'ok' : 'warn',
        title: `tool ${event.tool} ${event.ok ? 'succeeded' : 'failed'}`,
        detail: joinDetail(event.server && `server ${event.server}`, event.call_id && `call ${event.call_id}`),
      };
    case 'gate_decision':
      return {
        kind: 'gate',
        tone: event.destructive ? 'bad' : event.decision === 'allow' ? 'ok' : 'warn',
        title: `gate: ${event.tool} → ${event.decision}${event.destructive ? ' (destructive)' : ''}`,
        detail: joinDetail(event.rule && `rule ${event.rule}${event.mode ? ` (${event.mode})` : ''}`, event.harness, event.reason),
      };
    case 'abort':
      return { kind: 'abort', tone: 'bad', title: `abort: ${event.condition}`, detail: event.detail };
    case 'egress_request':
      return {
        kind: 'egress',
        tone: event.outcome === 'forwarded' ? 'info' : 'warn',
        title: `egress ${event.method} ${event.host} → ${event.outcome}`,
        detail: joinDetail(event.status !== undefined && `status ${event.status}`),
      };
    case 'warning':
      return { kind: 'plan', tone: 'warn', title: `warning: ${event.code}`, detail: event.detail };
  }
}

/** Events ordered by time (writers append independently; ties keep file order), described. */
export function timelineOf(events: readonly ChaosEvent[]): TimelineEntry[] {
  const ordered = events.map((event, i) => ({ event, i })).sort((a, b) => a.event.ts - b.event.ts || a.i - b.i);
  const start = ordered[0]?.event.ts ?? 0;
  let cumulative = 0;
  return ordered.map(({ event }) => {
    let cost: number | null = null;
    if (event.type === 'llm_call') {
      cost = event.cost_usd;
      cumulative += cost;
    }
    return { offset_ms: event.ts - start, source: event.source, cost_usd: cost, cumulative_cost_usd: cost === null ? null : cumulative, ...describe(event) };
  });
}

/** "+1:02.345" from the repetition's first event. */
export function offsetText(ms: number): string {
  const total = Math.max(0, Math.round(ms));
  const minutes = Math.floor(total / 60_000);
  const seconds = (total % 60_000) / 1000;
  return `+${minutes}:${seconds.toFixed(3).padStart(6, '0')}`;
}
