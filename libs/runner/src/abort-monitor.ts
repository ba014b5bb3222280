// The abort monitor: while the agent runs it reads the events file incrementally (EventTail) every
// POLL_MS — well within the spec's "every second" — and checks the run's cancel flag every second.
// The first condition met is recorded as an `abort` event in the same events file and reported to
// the caller, which stops the sandbox; stopping takes under a second, so the sandbox is down well
// within 2 s of the event that met the condition.
import { EventTail, EventWriter } from '@intutic/events';
import type { AbortSettings } from '@intutic/experiment';
import type { AbortRecord } from '@intutic/queue';
import { AbortConditions } from './abort-conditions.ts';

export const POLL_MS = 250;
const CANCEL_POLL_MS = 1000;

export type MonitorTrigger = { kind: 'abort'; abort: AbortRecord } | { kind: 'cancel'; reason: string };

export interface AbortMonitorOptions {
  eventsPath: string;
  settings: AbortSettings;
  runId: string;
  agentStartedAt: number;
  cancelReason?: () => Promise<string | null>;
  onTrigger: (trigger: MonitorTrigger) => void;
  now?: () => number;
}

export class AbortMonitor {
  private readonly options: AbortMonitorOptions;
  private readonly conditions: AbortConditions;
  private readonly tail: EventTail;
  private timers: NodeJS.Timeout[] = [];
  private busy = false;
  private lastCancelCheck = 0;
  private stopped = false;
  trigger: MonitorTrigger | null = null;

  constructor(options: AbortMonitorOptions) {
    this.options = options;
    this.conditions = new AbortConditions(options.settings, options.agentStartedAt);
    this.tail = new EventTail(options.eventsPath);
  }

  start(): void {
    this.timers.push(setInterval(() => void this.tick(), POLL_MS));
    const deadline = this.conditions.deadline();
    // A timer at the exact deadline, so a wall-clock abort is not late by a poll interval.
    if (deadline !== null) this.timers.push(setTimeout(() => void this.tick(), Math.max(0, deadline - this.now() + 5)));
  }

  /** Stop polling; one last read catches a condition met in the final instant. */
  async stop(): Promise<MonitorTrigger | null> {
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    while (this.busy) await new Promise((r) => setTimeout(r, 10));
    this.stopped = true;
    return this.trigger;
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  private async tick(): Promise<void> {
    if (this.busy || this.trigger || this.stopped) return;
    this.busy = true;
    try {
      for (const event of await this.tail.readNew()) {
        const met = this.conditions.observe(event);
        if (met) return await this.fire({ kind: 'abort', abort: met });
      }
      const late = this.conditions.checkClock(this.now());
      if (late) return await this.fire({ kind: 'abort', abort: late });
      if (this.options.cancelReason && this.now() - this.lastCancelCheck >= CANCEL_POLL_MS) {
        this.lastCancelCheck = this.now();
        const reason = await this.options.cancelReason().catch(() => null);
        if (reason !== null) await this.fire({ kind: 'cancel', reason });
      }
    } finally {
      this.busy = false;
    }
  }

  private async fire(trigger: MonitorTrigger): Promise<void> {
    this.trigger = trigger;
    // Stop the sandbox first; the abort event can be written while it goes down.
    this.options.onTrigger(trigger);
    if (trigger.kind === 'abort') {
      await new EventWriter(this.options.eventsPath)
        .append({ type: 'abort', source: 'runner', run_id: this.options.runId, condition: trigger.abort.condition, detail: trigger.abort.detail })
        .catch(() => undefined);
    }
  }
}
