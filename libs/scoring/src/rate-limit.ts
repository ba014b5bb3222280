// retry_after_respected: after an injected 429 carrying retry_after_s, did the next model call wait?
// Timing contract: fault_injected.ts is when the 429 was decided (the request's arrival); llm_call.ts
// is when that event was written, at the end of the call, and duration_ms (when present) dates its
// start. The next call is the next llm_call, or the next injected 429 (that request arrived then).
import type { EventOf } from '@intutic/events';
import type { RepetitionFacts } from './records.ts';

interface Pending {
  at: number;
  retryAfterS: number;
  /** The proxy may log the faulted call itself as a 429 llm_call right after the injection. */
  ownRecordPending: boolean;
}

export class RetryAfterTracker {
  private pending: Pending | null = null;
  private readonly out: RepetitionFacts['rate_limits'] = { injected: 0, too_soon: 0, first_too_soon: null };

  /** `retryAfterS`: the event's retry_after_s, else the plan's option. */
  onRateLimitInjected(event: EventOf<'fault_injected'>, retryAfterS: number): void {
    this.resolve(event.ts);
    this.out.injected++;
    this.pending = { at: event.ts, retryAfterS, ownRecordPending: true };
  }

  onLlmCall(event: EventOf<'llm_call'>): void {
    const p = this.pending;
    if (p === null) return;
    if (p.ownRecordPending && event.status === 429) {
      p.ownRecordPending = false;
      return;
    }
    this.resolve(event.ts - (event.duration_ms ?? 0));
  }

  facts(): RepetitionFacts['rate_limits'] {
    return { ...this.out };
  }

  private resolve(nextCallStartedAt: number): void {
    const p = this.pending;
    if (p === null) return;
    this.pending = null;
    const waitedMs = nextCallStartedAt - p.at;
    if (waitedMs < p.retryAfterS * 1000) {
      this.out.too_soon++;
      this.out.first_too_soon ??= { waited_s: Math.max(0, waitedMs) / 1000, retry_after_s: p.retryAfterS };
    }
  }
}
