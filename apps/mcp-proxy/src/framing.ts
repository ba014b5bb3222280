// The MCP stdio framing, split without parsing: one JSON-RPC message per line, "\n"-terminated, a
// trailing "\r" dropped (the same rules as the SDK's ReadBuffer). The relay needs the raw line so it
// can forward what it does not govern byte for byte instead of a re-serialized copy.

import { IntuticError } from '@intutic/errors';

/** Larger than the SDK's 10 MiB default so the proxy is never the tighter limit; the peers keep theirs. */
export const MAX_LINE_BYTES = 256 * 1024 * 1024;

export class LineSplitter {
  private chunks: Buffer[] = [];
  private buffered = 0;

  /** Feed a chunk; returns the complete lines it finished, in order. Throws past MAX_LINE_BYTES. */
  push(chunk: Buffer): string[] {
    const lines: string[] = [];
    let start = 0;
    let newline = chunk.indexOf(0x0a);
    while (newline !== -1) {
      const piece = chunk.subarray(start, newline);
      const whole = this.buffered === 0 ? piece : Buffer.concat([...this.chunks, piece]);
      this.chunks = [];
      this.buffered = 0;
      const end = whole.length > 0 && whole[whole.length - 1] === 0x0d ? whole.length - 1 : whole.length;
      lines.push(whole.toString('utf8', 0, end));
      start = newline + 1;
      newline = chunk.indexOf(0x0a, start);
    }
    if (start < chunk.length) {
      this.buffered += chunk.length - start;
      if (this.buffered > MAX_LINE_BYTES) {
        this.chunks = [];
        this.buffered = 0;
        throw new IntuticError('E_MCP_MESSAGE_TOO_LARGE', `a message exceeded ${MAX_LINE_BYTES} bytes without a newline`);
      }
      this.chunks.push(chunk.subarray(start));
    }
    return lines;
  }
}
