// Losing Redis for a while (a restart, a network blip) must neither crash a long-lived process nor
// flood its output with ioredis' raw errors. Every connection such a process opens is watched: its
// errors are taken (ioredis prints a stack trace for one nobody listens to), it tries again at most
// every RECONNECT_MAX_MS (connection.ts), and the process says once that it lost Redis and once that
// it is back. Commands wait in the meantime (maxRetriesPerRequest: null) and run after the reconnect.
import { redactUrl } from './connection.ts';

/** While Redis stays away, a reminder that this process is still waiting for it. */
export const STILL_DOWN_EVERY_MS = 60_000;

const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNABORTED',
]);

/** An error that only says the connection is gone (ioredis reconnects by itself), not a failed command. */
export function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as Error & { code?: unknown }).code;
  if (typeof code === 'string' && CONNECTION_ERROR_CODES.has(code)) return true;
  if (error.name === 'MaxRetriesPerRequestError' || error.name === 'ClusterAllFailedError') return true;
  // The last three: a cluster none of whose nodes answers.
  return /Connection is closed|Stream isn't writeable|^connect ETIMEDOUT|Failed to refresh slots cache|None of startup nodes is available|Cluster isn't ready/.test(
    error.message,
  );
}

/** An ioredis client, or BullMQ's wrapper of one. */
type Client = { on(event: string, listener: (...args: unknown[]) => void): unknown };

export class ConnectionWatch {
  private readonly down = new Set<Client>();
  private lostAt = 0;
  private reminder: NodeJS.Timeout | undefined;
  private lastBackAt = 0;

  constructor(
    readonly url: string,
    private readonly log: (line: string) => void,
  ) {}

  /** True while a watched connection is away. */
  get lost(): boolean {
    return this.down.size > 0;
  }

  /** When every connection was last back after an outage (0: never lost). */
  get backAt(): number {
    return this.lastBackAt;
  }

  /**
   * Watch one ioredis client. `onBack` runs each time this client is ready again after it was lost,
   * after the commands that waited for it were sent.
   */
  watch(client: Client, onBack?: () => void): void {
    // Taken so ioredis prints no stack trace: a lost connection is said on 'reconnecting', any other
    // error by the BullMQ object (Queue, Worker) that passes it on as its own.
    client.on('error', () => undefined);
    client.on('reconnecting', () => this.markLost(client));
    client.on('ready', () => {
      if (!this.down.delete(client)) return;
      if (this.down.size === 0) this.markBack();
      onBack?.();
    });
    client.on('end', () => {
      // Closed for good (quit or disconnect): nothing to wait for.
      if (this.down.delete(client) && this.down.size === 0) this.markBack(false);
    });
  }

  say(line: string): void {
    this.log(line);
  }

  /** An error event of a BullMQ object (Worker, Queue): the connection ones are said once, here. */
  error(error: unknown, prefix: string): void {
    if (isConnectionError(error)) return;
    this.log(`${prefix}${error instanceof Error ? error.message : String(error)}`);
  }

  private markLost(client: Client): void {
    const first = this.down.size === 0;
    this.down.add(client);
    if (!first) return;
    this.lostAt = Date.now();
    this.log(`lost the connection to Redis at ${redactUrl(this.url)}: reconnecting (work in progress goes on; what it records waits for Redis)`);
    clearInterval(this.reminder);
    this.reminder = setInterval(
      () => this.log(`still no answer from Redis at ${redactUrl(this.url)} after ${this.seconds()} s: reconnecting`),
      STILL_DOWN_EVERY_MS,
    );
    this.reminder.unref();
  }

  private markBack(say = true): void {
    clearInterval(this.reminder);
    this.reminder = undefined;
    this.lastBackAt = Date.now();
    if (say) this.log(`reconnected to Redis at ${redactUrl(this.url)} after ${this.seconds()} s`);
  }

  private seconds(): string {
    return ((Date.now() - this.lostAt) / 1000).toFixed(1);
  }
}

const watches = new WeakMap<(line: string) => void, Map<string, ConnectionWatch>>();

/** One watch per log and Redis: a `chaos run` following a run and working on it says things once. */
export function connectionWatch(url: string, log: (line: string) => void): ConnectionWatch {
  let byUrl = watches.get(log);
  if (!byUrl) watches.set(log, (byUrl = new Map<string, ConnectionWatch>()));
  let watch = byUrl.get(url);
  if (!watch) byUrl.set(url, (watch = new ConnectionWatch(url, log)));
  return watch;
}
