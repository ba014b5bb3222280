// The proxy's side of the events file: appends in the order they were emitted (one write at a time,
// so a fault_injected always lands before the llm_call it belongs to), stamped with the plan's run
// id, and never delaying a response. A model call's accounting (its usage read, its llm_call) runs a
// millisecond after its answer was written (afterAnswer), and events are checked and written a
// millisecond after they are emitted, those of that millisecond together: on a small machine the
// client shares the proxy's CPU and reads its answer only once the proxy yields it (accounting,
// checking and writing at once were seen adding about 0.3 ms to every model call on 2 cores). An
// event emitted while accounting waits is queued behind it, so the file keeps the calls' order.
// Each write(2) holds whole lines, on a file opened once with O_APPEND, so lines from the gates and
// the MCP proxy appending to the same file never interleave. With no events file, events are dropped.
import { mkdir, type FileHandle } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { dirname } from 'node:path';
import { formatEvent, openEventsForAppend, type EventInput } from '@intutic/events';
import type { Logger } from './log.ts';

export type ProxyEvent = EventInput;

export class EventSink {
  private file: Promise<FileHandle> | null = null;
  private chain: Promise<void> = Promise.resolve();
  /** Emitted, not yet checked and written. */
  private waiting: ProxyEvent[] = [];
  private timer: NodeJS.Timeout | null = null;
  /** Accounting queued by afterAnswer, run one task at a time. */
  private accounting: Promise<void> = Promise.resolve();
  private accountingQueued = 0;

  constructor(
    private readonly path: string | undefined,
    private readonly runId: string | undefined,
    private readonly log: Logger,
  ) {}

  private handle(path: string): Promise<FileHandle> {
    // Never through a link or into a FIFO the sandbox planted in the events file's place (see openEventsForAppend).
    this.file ??= mkdir(dirname(path), { recursive: true }).then(() => openEventsForAppend(path));
    return this.file;
  }

  emit(event: ProxyEvent): void {
    if (!this.path) return;
    const stamped = event.ts === undefined ? { ...event, ts: Date.now() } : event;
    if (this.accountingQueued > 0) this.afterAnswer((emit) => emit(stamped));
    else this.push(stamped);
  }

  /**
   * Runs a call's accounting a millisecond after now, after any accounting queued before it; what
   * it emits (through `emit`, not this.emit) goes in its place in the file.
   */
  afterAnswer(task: (emit: (event: ProxyEvent) => void) => void | Promise<void>): void {
    const due = performance.now() + 1;
    this.accountingQueued++;
    this.accounting = this.accounting
      .then(async () => {
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
        await task((event) => this.path && this.push(event.ts === undefined ? { ...event, ts: Date.now() } : event));
      })
      .catch((error: unknown) => {
        this.log.error("a model call's accounting failed", { error: error instanceof Error ? error.message : String(error) });
      })
      .finally(() => this.accountingQueued--);
  }

  private push(event: ProxyEvent): void {
    this.waiting.push(event);
    this.timer ??= setTimeout(() => this.write(), 1);
  }

  /** The events waiting, checked and appended in one write. */
  private write(): void {
    const path = this.path;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!path || this.waiting.length === 0) return;
    const events = this.waiting;
    this.waiting = [];
    let lines = '';
    for (const event of events) {
      try {
        lines += formatEvent({ ...event, ...(this.runId ? { run_id: this.runId } : {}) });
      } catch (error) {
        this.log.error('an event did not fit the events schema', { type: event.type, error: (error as Error).message });
      }
    }
    if (lines === '') return;
    this.chain = this.chain
      .then(async () => {
        await (await this.handle(path)).write(lines);
      })
      .catch((error: unknown) => {
        this.log.error('could not append events', {
          types: events.map((e) => e.type).join(','),
          error: error instanceof Error ? error.message : String(error),
        });
      });
  }

  /** Resolves once every event emitted so far, and every call's accounting queued, is on disk. */
  async flush(): Promise<void> {
    await this.accounting;
    this.write();
    await this.chain;
  }

  async close(): Promise<void> {
    await this.flush();
    if (this.file) await (await this.file).close();
    this.file = null;
  }
}
