// The abort monitor: while the agent runs it reads the events file incrementally (EventTail) as soon
// as the file changes (watched) and every POLL_MS regardless — the watch is what makes it quick, the
// poll what makes it sure, as a watch can miss (the agent may replace the directory it watches) —
// and checks the run's cancel flag every second.
// The first condition met is recorded as an `abort` event in the same events file and reported to
// the caller, which stops the sandbox; stopping takes under a second, so the sandbox is down well
// within 2 s of the event that met the condition. Time comes from a MonitorClock, so a test can
// drive it by hand. The events file is the sandbox's to replace: it is read only through
// sandbox-file.ts and appended to only through openEventsForAppend (a link, a FIFO or anything but a
// plain file is neither read nor written; the events mirror records that as tampering).
import { watch } from 'node:fs';
import { dirname } from 'node:path';
import { EventTail, EventWriter } from '@intutic/events';
import type { AbortSettings } from '@intutic/experiment';
import type { AbortRecord } from '@intutic/queue';
import { AbortConditions } from './abort-conditions.ts';
import { openSandboxFile } from './sandbox-file.ts';

export const POLL_MS = 250;
const CANCEL_POLL_MS = 1000;

export type MonitorTrigger = { kind: 'abort'; abort: AbortRecord } | { kind: 'cancel'; reason: string };

/** Time as the monitor sees it. Each scheduling call returns the function that cancels it. */
export interface MonitorClock {
  now(): number;
  /** Run `task` every `ms`. A fake clock may await the task; the system clock does not. */
  every(ms: number, task: () => Promise<void>): () => void;
  /** Run `task` once, `ms` from now. */
  after(ms: number, task: () => Promise<void>): () => void;
  /** Run `task` whenever something in directory `dir` changes, as far as the system can tell. */
  onChange?(dir: string, task: () => Promise<void>): () => void;
}

export const systemClock: MonitorClock = {
  now: () => Date.now(),
  every: (ms, task) => {
    const timer = setInterval(() => void task(), ms);
    return () => clearInterval(timer);
  },
  after: (ms, task) => {
    const timer = setTimeout(() => void task(), ms);
    return () => clearTimeout(timer);
  },
  onChange: (dir, task) => {
    try {
      const watcher = watch(dir, { persistent: false }, () => void task());
      // A watch that breaks (the directory removed, out of inotify watches) leaves the poll to it.
      watcher.on('error', () => watcher.close());
      return () => watcher.close();
    } catch {
      return () => undefined;
    }
  },
};

export interface AbortMonitorOptions {
  eventsPath: string;
  /** The worktree the events file is in: no directory between it and the file may be a link. */
  worktree?: string;
  settings: AbortSettings;
  runId: string;
  agentStartedAt: number;
  cancelReason?: () => Promise<string | null>;
  onTrigger: (trigger: MonitorTrigger) => void;
  /** systemClock unless a test drives time itself. */
  clock?: MonitorClock;
}

export class AbortMonitor {
  private readonly options: AbortMonitorOptions;
  private readonly conditions: AbortConditions;
  private readonly tail: EventTail;
  private readonly root: { root?: string };
  private readonly clock: MonitorClock;
  private cancels: Array<() => void> = [];
  /** The read in progress, if any: ticks never overlap, and stop() waits for it. */
  private running: Promise<void> | null = null;
  /** A change came while a read was in progress: read again once it is done. */
  private again = false;
  private lastCancelCheck = 0;
  private stopped = false;
  trigger: MonitorTrigger | null = null;

  constructor(options: AbortMonitorOptions) {
    this.options = options;
    this.conditions = new AbortConditions(options.settings, options.agentStartedAt);
    this.root = options.worktree ? { root: options.worktree } : {};
    this.tail = new EventTail(options.eventsPath, { open: (path) => openSandboxFile(path, this.root) });
    this.clock = options.clock ?? systemClock;
  }

  start(): void {
    this.cancels.push(this.clock.every(POLL_MS, () => this.tick()));
    if (this.clock.onChange) this.cancels.push(this.clock.onChange(dirname(this.options.eventsPath), () => this.tick()));
    const deadline = this.conditions.deadline();
    // A timer at the exact deadline, so a wall-clock abort is not late by a poll interval.
    if (deadline !== null) this.cancels.push(this.clock.after(Math.max(0, deadline - this.clock.now() + 5), () => this.tick()));
  }

  /** Stop polling, once the read in progress (if any) has finished: what it found is returned. */
  async stop(): Promise<MonitorTrigger | null> {
    for (const cancel of this.cancels.splice(0)) cancel();
    this.stopped = true;
    await this.running?.catch(() => undefined);
    return this.trigger;
  }

  private tick(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    if (this.trigger || this.stopped) return Promise.resolve();
    this.running = this.check().finally(() => {
      this.running = null;
      if (this.again) {
        this.again = false;
        void this.tick();
      }
    });
    return this.running;
  }

  private async check(): Promise<void> {
    for (const event of await this.tail.readNew()) {
      const met = this.conditions.observe(event);
      if (met) return await this.fire({ kind: 'abort', abort: met });
    }
    const late = this.conditions.checkClock(this.clock.now());
    if (late) return await this.fire({ kind: 'abort', abort: late });
    if (this.options.cancelReason && this.clock.now() - this.lastCancelCheck >= CANCEL_POLL_MS) {
      this.lastCancelCheck = this.clock.now();
      const reason = await this.options.cancelReason().catch(() => null);
      if (reason !== null) await this.fire({ kind: 'cancel', reason });
    }
  }

  private async fire(trigger: MonitorTrigger): Promise<void> {
    this.trigger = trigger;
    // Stop the sandbox first; the abort event can be written while it goes down.
    this.options.onTrigger(trigger);
    if (trigger.kind === 'abort') {
      // EventWriter appends without following a link or blocking on a FIFO (openEventsForAppend).
      await new EventWriter(this.options.eventsPath)
        .append({ type: 'abort', source: 'runner', run_id: this.options.runId, condition: trigger.abort.condition, detail: trigger.abort.detail })
        .catch(() => undefined);
    }
  }
}
