// A forwarded response's body, upstream to client, in batches. `pipe` pauses the upstream as soon as
// the client's socket holds one chunk, and a chunk is one TLS record (16 KiB): every record cost a
// pause, a resume, an encryption and a system call of its own (9,600 writes for 150 MB). Here the
// chunks that arrive in one turn of the event loop are written as one batch (the client's socket
// corked until the turn ends: one encryption, one system call; 1,250 writes), and the upstream is
// paused only when the client has fallen MAX_BUFFERED behind. Errors and hang-ups stay with the
// caller (forward.ts), which destroys one side when the other fails.
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Bytes written to the client and not yet sent, past which the upstream is paused until they drain. */
export const MAX_BUFFERED = 256 * 1024;

export function relayBody(from: IncomingMessage, to: ServerResponse): void {
  let batching = false;
  const endBatch = (): void => {
    if (!batching) return;
    batching = false;
    to.uncork();
  };
  from.on('data', (chunk: Buffer) => {
    if (!batching) {
      batching = true;
      to.cork();
      setImmediate(endBatch);
    }
    to.write(chunk);
    if (to.writableLength > MAX_BUFFERED) from.pause();
  });
  to.on('drain', () => {
    if (from.isPaused()) from.resume();
  });
  from.once('end', () => {
    endBatch();
    to.end();
  });
}
