// Relaying an upstream response to the client: status and headers as they came (less hop-by-hop
// ones), then the body as it is read, each piece written before the usage collector sees its copy,
// so the client is never delayed and gets the upstream's bytes unchanged.
//
// Two ways to write the body:
// - Pass-through (the usual case: an HTTP/1.1 client, a chunked or sized body, no stream cut): the
//   upstream's raw bytes, its chunk framing included, go straight onto the client's socket, one
//   write per socket read. node:http writes the head before them and the last chunk after them.
//   This is what keeps the proxy's cost per streamed megabyte near a bare TCP relay's.
// - Re-framed: the decoded body goes through node:http's response, which frames it itself. Used
//   for HTTP/1.0 clients, bodies that end with the connection, and stream cuts.
// With a stream cut (llm.upstream_5xx stream_cut_after_chunks) whole SSE events are forwarded up to
// the cut, then the provider's error event, then the connection is dropped mid-response; the rest
// of the upstream stream is still read for its usage, since the provider bills it.
// With a key watch (a proxy holding real keys, a stream), the provider's error events go through
// the stream guard first (stream-guard.ts): one that quotes a key is replaced by the proxy's own
// error event, which ends the response. Answers that are not successes never come here
// (error-answer.ts reads them whole).
import { endToEndHeaders } from '../headers.ts';
import type { Reply } from '../reply.ts';
import type { BodyPiece, Exchange } from '../wire/exchange.ts';
import { SseSplitter } from './sse.ts';
import type { StreamGuard } from './stream-guard.ts';
import type { UsageCollector } from './usage.ts';

export interface StreamCut {
  afterEvents: number;
  /** The provider's mid-stream error event, written last; given the first event forwarded, if any. */
  errorEvent(firstEvent: string | null): Buffer;
  onCut(forwardedEvents: number): void;
}

export interface RelayOutcome {
  /** The client went away before the response was complete. */
  clientGone: boolean;
  /** The upstream connection failed mid-response. */
  upstreamFailed: boolean;
  cut: boolean;
  /** An error event quoted a key: it was replaced by the proxy's own, which ended the response. */
  withheld?: boolean;
}

/** A stream's error events checked for the real keys, and the event that replaces one that quotes one. */
export interface KeyWatch {
  guard: StreamGuard;
  /** The proxy's error event in place of the provider's, naming the status the provider's named. */
  replacement(status: number): Buffer;
}

/** How the body's bytes reach the client: raw onto its socket, or through node:http's framing. */
interface BodyWriter {
  /** Writes the piece; false when the client is not taking bytes as fast as they come. */
  write(piece: BodyPiece): boolean;
  /**
   * Writes bytes of the proxy's own as the body's last, and ends the response: cleanly where the
   * framing allows it, else by breaking the connection off after them.
   */
  finish(bytes: Buffer): void;
  once(event: 'drain', listener: () => void): void;
  /** Whether the piece's memory is still referenced by a write in progress. */
  holding(): boolean;
}

/** What the relay needs of an upstream response (an Exchange; a scripted one in tests). */
export type UpstreamBody = Pick<Exchange, 'head' | 'read' | 'pause' | 'resume' | 'destroy'>;

export function relay(
  /** The client's HTTP version. */
  httpVersion: string,
  upstream: UpstreamBody,
  res: Reply,
  collector: UsageCollector,
  cut: StreamCut | null,
  watch: KeyWatch | null = null,
): Promise<RelayOutcome> {
  return new Promise((resolve) => {
    const outcome: RelayOutcome = { clientGone: false, upstreamFailed: false, cut: false, withheld: false };
    let settled = false;
    const settle = (): void => {
      if (settled) return;
      settled = true;
      resolve(outcome);
    };

    const writer = startResponse(httpVersion, upstream.head, res, cut);
    const cutter = cut ? new StreamCutter(cut, upstream, res, outcome) : null;
    const deliver = (piece: BodyPiece): void => {
      if (cutter) return cutter.forward(piece);
      if (!writer.write(piece)) {
        upstream.pause();
        writer.once('drain', () => upstream.resume());
      }
    };
    const withhold = (guard: StreamGuard): void => {
      outcome.withheld = true;
      const event = watch!.replacement(guard.withheldStatus);
      // Whole events went out before a cut's; raw bytes may have stopped inside one, which must end first.
      const lead = cutter || guard.atEventEnd ? '' : '\n\n';
      if (cutter) {
        res.write(event);
        res.end();
      } else {
        writer.finish(Buffer.concat([Buffer.from(lead), event]));
      }
    };
    const guarded = (step: ReturnType<StreamGuard['push']>, guard: StreamGuard, piece: BodyPiece | null): void => {
      if (step.kind === 'pass') {
        if (piece) deliver(piece);
      } else if (step.kind === 'release') {
        for (const held of step.pieces) if (!outcome.cut && !outcome.clientGone) deliver(held);
      } else if (step.kind === 'withhold') {
        withhold(guard);
      }
    };
    const forward = (piece: BodyPiece): void => {
      if (outcome.cut || outcome.clientGone || outcome.withheld) return;
      if (watch) guarded(watch.guard.push(piece), watch.guard, piece);
      else deliver(piece);
    };

    res.once('close', () => {
      if (res.writableFinished || outcome.cut || outcome.withheld) return;
      outcome.clientGone = true;
      // Stop generating tokens nobody will read.
      upstream.destroy();
      settle();
    });
    upstream.read({
      piece(piece) {
        forward(piece);
        if (piece.payload.length > 0) collector.push(piece.payload);
        return outcome.clientGone || outcome.cut || !writer.holding();
      },
      end() {
        // What a guard still holds is judged now: the stream ended inside an error event.
        if (watch && !outcome.cut && !outcome.clientGone && !outcome.withheld) guarded(watch.guard.end(), watch.guard, null);
        if (outcome.withheld) return settle();
        if (cutter && !outcome.cut && !outcome.clientGone) cutter.cutNow();
        else if (!outcome.cut && !outcome.clientGone) res.end();
        settle();
      },
      error() {
        if (outcome.clientGone) return settle(); // we hung up on it ourselves
        outcome.upstreamFailed = true;
        if (!outcome.cut && !outcome.withheld) res.destroy(); // the client sees the response break off, as it did upstream
        settle();
      },
    });
  });
}

/** Write the response's head and pick how its body is written: passed through, or re-framed. */
function startResponse(httpVersion: string, head: UpstreamBody['head'], res: Reply, cut: StreamCut | null): BodyWriter {
  const headers = endToEndHeaders(head.headers);
  const socket = res.socket;
  const passThrough = !cut && socket !== null && httpVersion === '1.1' && (head.framing.kind === 'chunked' || head.framing.kind === 'length');
  // node:http ends a chunked response with its own last chunk; the upstream's is held back.
  if (passThrough && head.framing.kind === 'chunked') headers['transfer-encoding'] = 'chunked';
  res.writeHead(head.status, headers);
  // The head goes out now: a stream's client may wait long for the first event, and raw body
  // bytes must follow the head on the socket. Corked until the end of this tick, so the body
  // already read with the head (a whole small answer) leaves in the same write(2): the client
  // wakes once, not once for the head and again for the body.
  if (passThrough || String(head.headers['content-type'] ?? '').includes('text/event-stream')) {
    socket?.cork();
    res.flushHeaders();
    if (socket) process.nextTick(() => socket.uncork());
  }
  // A piece's memory is reused for the next read once the relay lets go of it. Raw bytes the
  // socket took whole are let go of; ones it queued are held. The re-framed way writes a copy.
  if (!passThrough) {
    return {
      write: (piece) => piece.payload.length === 0 || res.write(Buffer.from(piece.payload)),
      finish: (bytes) => {
        res.write(bytes);
        res.end();
      },
      once: (event, listener) => res.once(event, listener),
      holding: () => false,
    };
  }
  // Whether the raw bytes written so far end between the upstream's chunks (no body yet: they do).
  let betweenChunks = head.framing.kind === 'chunked';
  return {
    write: (piece) => {
      if (piece.raw.length === 0) return true;
      betweenChunks = piece.chunkEnd === true;
      return socket.write(piece.raw);
    },
    finish: (bytes) => {
      if (betweenChunks) {
        // A chunk of the proxy's own; node:http (or the raw reply) then writes the last chunk.
        socket.write(Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]));
        res.end();
      } else {
        // Inside a chunk, or a body of a fixed length: the bytes cannot be framed; the client sees them and the end break off.
        socket.write(bytes, () => res.destroy());
      }
    },
    once: (event, listener) => socket.once(event, listener),
    holding: () => socket.writableLength > 0,
  };
}

/** A stream cut under way: whole SSE events forwarded up to the cut point, then the provider's error event. */
class StreamCutter {
  private readonly splitter = new SseSplitter();
  private readonly held: Buffer[] = [];
  private forwarded = 0;
  private firstEvent: string | null = null;
  private readonly cut: StreamCut;
  private readonly upstream: UpstreamBody;
  private readonly res: Reply;
  private readonly outcome: RelayOutcome;

  constructor(cut: StreamCut, upstream: UpstreamBody, res: Reply, outcome: RelayOutcome) {
    this.cut = cut;
    this.upstream = upstream;
    this.res = res;
    this.outcome = outcome;
  }

  forward(piece: BodyPiece): void {
    // Hold one event back: when the stream ends before the cut point, the cut still happens.
    this.held.push(...this.splitter.push(Buffer.from(piece.payload)));
    while (this.held.length > 1 && this.forwarded < this.cut.afterEvents) {
      const event = this.held.shift()!;
      this.firstEvent ??= event.toString('utf8');
      this.res.write(event);
      this.forwarded++;
    }
    if (this.forwarded >= this.cut.afterEvents) this.cutNow();
  }

  cutNow(): void {
    if (this.outcome.cut) return;
    this.outcome.cut = true;
    this.cut.onCut(this.forwarded);
    this.upstream.resume(); // from here on the upstream is only read for usage
    this.res.write(this.cut.errorEvent(this.firstEvent), () => this.res.destroy());
  }
}
