// A bounded artifact for an output stream: the first OUTPUT_CAP_BYTES are kept (and shown live),
// the rest is counted and dropped, and a note at the end says how much. An agent that prints
// gigabytes then costs the worker neither memory nor disk; the canary scan still sees every byte.
// A write that fails (the disk is full) never crashes the worker: the file stops there, `failure`
// holds the error and `onError` hears of it once, so the repetition can stop and say so.
import { createWriteStream, type WriteStream } from 'node:fs';

export const OUTPUT_CAP_BYTES = 16 * 1024 * 1024;

export class CappedOutput {
  private readonly file: WriteStream;
  private readonly limit: number;
  private readonly closed: Promise<void>;
  private kept = 0;
  dropped = 0;
  failure: Error | null = null;

  constructor(path: string, options: { limit?: number; onError?: (error: Error) => void } = {}) {
    this.file = createWriteStream(path);
    this.limit = options.limit ?? OUTPUT_CAP_BYTES;
    this.file.on('error', (error) => {
      if (this.failure) return;
      this.failure = error;
      options.onError?.(error);
    });
    this.closed = new Promise<void>((resolve) => this.file.once('close', () => resolve()));
  }

  /** Write what fits under the cap; returns that part (empty once the cap is reached). */
  write(chunk: Buffer): Buffer {
    const room = Math.max(0, this.limit - this.kept);
    const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
    this.dropped += chunk.length - part.length;
    if (part.length > 0) {
      this.kept += part.length;
      if (!this.failure && !this.file.destroyed) this.file.write(part);
    }
    return part;
  }

  get truncated(): boolean {
    return this.dropped > 0;
  }

  note(name: string): string {
    return `${name}: ${this.limit / 1024 / 1024} MiB kept, ${this.dropped} more bytes dropped (the output cap)`;
  }

  /** Flush and close; resolves once the file is closed, whether or not a write failed. */
  end(name: string): Promise<void> {
    if (!this.failure && !this.file.destroyed) {
      if (this.truncated) this.file.write(`\n[intutic] ${this.note(name)}\n`);
      this.file.end();
    }
    return this.closed;
  }
}
