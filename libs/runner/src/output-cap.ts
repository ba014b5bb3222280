// A bounded artifact for an output stream: the first OUTPUT_CAP_BYTES are kept (and shown live),
// the rest is counted and dropped, and a note at the end says how much. An agent that prints
// gigabytes then costs the worker neither memory nor disk; the canary scan still sees every byte.
import { createWriteStream, type WriteStream } from 'node:fs';

export const OUTPUT_CAP_BYTES = 16 * 1024 * 1024;

export class CappedOutput {
  private readonly file: WriteStream;
  private readonly limit: number;
  private kept = 0;
  dropped = 0;

  constructor(path: string, limit = OUTPUT_CAP_BYTES) {
    this.file = createWriteStream(path);
    this.limit = limit;
  }

  /** Write what fits under the cap; returns that part (empty once the cap is reached). */
  write(chunk: Buffer): Buffer {
    const room = Math.max(0, this.limit - this.kept);
    const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
    this.dropped += chunk.length - part.length;
    if (part.length > 0) {
      this.kept += part.length;
      this.file.write(part);
    }
    return part;
  }

  get truncated(): boolean {
    return this.dropped > 0;
  }

  note(name: string): string {
    return `${name}: ${this.limit / 1024 / 1024} MiB kept, ${this.dropped} more bytes dropped (the output cap)`;
  }

  end(name: string): Promise<void> {
    if (this.truncated) this.file.write(`\n[intutic] ${this.note(name)}\n`);
    return new Promise<void>((resolve) => this.file.end(resolve));
  }
}
