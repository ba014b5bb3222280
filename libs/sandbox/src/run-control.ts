// Stopping a running sandbox: once, on the caller's abort or its timeout, SIGTERM to the entrypoint
// (which kills everything and gives the workspace back), SIGKILL STOP_GRACE_MS later.
import type Docker from 'dockerode';

/** Between SIGTERM (the entrypoint kills everything and gives the workspace back) and SIGKILL. */
const STOP_GRACE_MS = 600;

/**
 * Stopping a running sandbox, once, and why it was stopped: SIGTERM to the entrypoint, SIGKILL
 * STOP_GRACE_MS later. Its timers are cleared when the run is over.
 */
export class RunControl {
  timedOut = false;
  aborted = false;
  stopping = false;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly container: Docker.Container;

  constructor(container: Docker.Container) {
    this.container = container;
  }

  /** For the caller's abort signal (one function, so that it can be removed again). */
  readonly onAbort = (): void => {
    this.aborted = true;
    this.stop();
  };

  stopAfter(timeoutMs: number): void {
    this.timers.push(
      setTimeout(() => {
        this.timedOut = true;
        this.stop();
      }, timeoutMs),
    );
  }

  /** Resolves after `ms`, unless the timers are cleared first. */
  delay(ms: number): Promise<unknown> {
    return new Promise((resolve) => this.timers.push(setTimeout(resolve, ms)));
  }

  clearTimers(): void {
    for (const timer of this.timers) clearTimeout(timer);
  }

  private stop(): void {
    if (this.stopping) return;
    this.stopping = true;
    this.container.kill({ signal: 'SIGTERM' }).catch(() => undefined);
    this.timers.push(setTimeout(() => void this.container.kill({ signal: 'SIGKILL' }).catch(() => undefined), STOP_GRACE_MS));
  }
}
