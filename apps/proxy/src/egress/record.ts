// The egress proxy's lines in the events file: fault_injected (target = host) and one egress_request
// per request (per CONNECT for a plain tunnel). Appends are queued so they land in the order they
// happened; a failing disk is logged, never thrown into a request. No path, header or body is recorded.
import type { EventInput, EventWriter } from '@intutic/events';

export type EgressOutcome = 'forwarded' | 'blocked' | 'faulted' | 'failed';

export class EgressRecorder {
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly events: EventWriter | null,
    private readonly runId: string | undefined,
    private readonly log: (line: string) => void,
  ) {}

  private append(input: EventInput): Promise<void> {
    const events = this.events;
    if (events === null) return this.queue;
    // The queue never rejects: each append's failure is logged where it happens.
    this.queue = this.queue
      .then(() => events.append(input))
      .then(
        () => undefined,
        (error: unknown) => this.log(`egress: could not append a ${input.type} event: ${error instanceof Error ? error.message : String(error)}`),
      );
    return this.queue;
  }

  private get base() {
    return { source: 'proxy' as const, ...(this.runId === undefined ? {} : { run_id: this.runId }) };
  }

  request(host: string, method: string, outcome: EgressOutcome, status?: number): Promise<void> {
    return this.append({ ...this.base, type: 'egress_request', host, method: method.slice(0, 20), outcome, ...(status === undefined ? {} : { status }) });
  }

  faultInjected(fault: { index: number; id: string }, host: string, detail: string): Promise<void> {
    return this.append({ ...this.base, type: 'fault_injected', fault_index: fault.index, fault_id: fault.id, target: host, detail });
  }

  /** Resolves once every queued event is on disk (or its failure logged). */
  flush(): Promise<void> {
    return this.queue;
  }
}
