// The proxy's side of the events file: appends in the order they were emitted (one write at a time,
// so a fault_injected always lands before the llm_call it belongs to), stamped with the plan's run
// id, and never delaying a response. Each event is one write(2) of one line on a file opened once
// with O_APPEND, so lines from the gates and the MCP proxy appending to the same file never
// interleave. With no events file, events are dropped.
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { formatEvent, type EventInput } from '@intutic/events';
import type { Logger } from './log.ts';

export type ProxyEvent = EventInput;

export class EventSink {
  private file: Promise<FileHandle> | null = null;
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly path: string | undefined,
    private readonly runId: string | undefined,
    private readonly log: Logger,
  ) {}

  private handle(path: string): Promise<FileHandle> {
    this.file ??= mkdir(dirname(path), { recursive: true }).then(() => open(path, 'a'));
    return this.file;
  }

  emit(event: ProxyEvent): void {
    const path = this.path;
    if (!path) return;
    let line: string;
    try {
      line = formatEvent({ ...event, ...(this.runId ? { run_id: this.runId } : {}) });
    } catch (error) {
      this.log.error('an event did not fit the events schema', { type: event.type, error: (error as Error).message });
      return;
    }
    this.chain = this.chain
      .then(async () => {
        await (await this.handle(path)).write(line);
      })
      .catch((error: unknown) => {
        this.log.error('could not append an event', { type: event.type, error: error instanceof Error ? error.message : String(error) });
      });
  }

  /** Resolves once every event emitted so far is on disk. */
  flush(): Promise<void> {
    return this.chain;
  }

  async close(): Promise<void> {
    await this.chain;
    if (this.file) await (await this.file).close();
    this.file = null;
  }
}
