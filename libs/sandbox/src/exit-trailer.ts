// The entrypoint's last line on stdout once the command is over (its processes killed, the workspace
// given back): `intutic-exit-<nonce> <code>`. It comes tens of milliseconds before the engine reports
// the container gone (network and mounts torn down), and says the same exit code. The nonce travels in
// the env block, which only the entrypoint reads as root, so the command cannot write a trailer of its
// own. The filter passes stdout on without it, holding back only bytes that could begin one.
import { randomBytes } from 'node:crypto';

export const newTrailerNonce = (): string => randomBytes(16).toString('hex');

const NEWLINE = 10;
/** Room for the code and the newline after the marker; past it, what looked like a trailer is output. */
const MAX_CODE_BYTES = 6;

export class ExitTrailerFilter {
  private readonly marker: Buffer;
  private held: Buffer = Buffer.alloc(0);
  private seen = false;

  constructor(
    nonce: string,
    private readonly pass: (chunk: Buffer) => void,
    private readonly onExit: (exitCode: number) => void,
  ) {
    this.marker = Buffer.from(`intutic-exit-${nonce} `, 'latin1');
  }

  push(chunk: Buffer): void {
    if (this.seen) return this.passOn(chunk);
    const data = this.held.length === 0 ? chunk : Buffer.concat([this.held, chunk]);
    this.held = Buffer.alloc(0);
    const at = data.indexOf(this.marker);
    if (at === -1) {
      const keep = this.partialMarkerAtEnd(data);
      this.passOn(data.subarray(0, data.length - keep));
      if (keep > 0) this.held = Buffer.from(data.subarray(data.length - keep));
      return;
    }
    this.passOn(data.subarray(0, at));
    const codeStart = at + this.marker.length;
    const end = data.indexOf(NEWLINE, codeStart);
    if (end === -1) {
      if (data.length - codeStart <= MAX_CODE_BYTES) this.held = Buffer.from(data.subarray(at));
      else this.passOn(data.subarray(at));
      return;
    }
    const code = data.subarray(codeStart, end).toString('latin1');
    if (!/^\d{1,3}$/.test(code)) {
      this.passOn(data.subarray(at));
      return;
    }
    this.seen = true;
    this.onExit(Number(code));
    this.passOn(data.subarray(end + 1));
  }

  /** The stream ended: whatever was held back was output after all. */
  end(): void {
    const rest = this.held;
    this.held = Buffer.alloc(0);
    this.passOn(rest);
  }

  private passOn(bytes: Buffer): void {
    if (bytes.length > 0) this.pass(bytes);
  }

  /** How many bytes at the end of data are the start of the marker (they may be a trailer's). */
  private partialMarkerAtEnd(data: Buffer): number {
    const first = this.marker[0]!;
    for (let i = data.indexOf(first, Math.max(0, data.length - this.marker.length + 1)); i !== -1; i = data.indexOf(first, i + 1)) {
      if (data.subarray(i).equals(this.marker.subarray(0, data.length - i))) return data.length - i;
    }
    return 0;
  }
}
