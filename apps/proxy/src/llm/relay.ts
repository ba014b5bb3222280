// Relaying an upstream response to the client: status and headers as they came (less hop-by-hop
// ones), then the body passed on in the same tick it arrived in and only then copied to the usage
// collector, so the client is never delayed and gets the upstream's bytes unchanged. With a stream cut
// (llm.upstream_5xx stream_cut_after_chunks) whole SSE events are forwarded up to the cut, then the
// provider's error event, then the connection is dropped mid-response; the rest of the upstream
// stream is still read for its usage, since the provider bills it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { endToEndHeaders } from '../headers.ts';
import { SseSplitter } from './sse.ts';
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
}

export function relay(upstream: IncomingMessage, res: ServerResponse, collector: UsageCollector, cut: StreamCut | null): Promise<RelayOutcome> {
  return new Promise((resolve) => {
    const outcome: RelayOutcome = { clientGone: false, upstreamFailed: false, cut: false };
    let settled = false;
    const settle = (): void => {
      if (settled) return;
      settled = true;
      resolve(outcome);
    };

    res.writeHead(upstream.statusCode ?? 502, endToEndHeaders(upstream.headers));
    // A stream's headers go out at once (the client may wait long for the first event); a JSON
    // answer's go with its body, in one write.
    if (String(upstream.headers['content-type'] ?? '').includes('text/event-stream')) res.flushHeaders();

    const splitter = cut ? new SseSplitter() : null;
    const held: Buffer[] = [];
    let forwarded = 0;
    let firstEvent: string | null = null;
    const doCut = (): void => {
      if (outcome.cut || !cut) return;
      outcome.cut = true;
      cut.onCut(forwarded);
      upstream.resume(); // from here on the upstream is only read for usage
      res.write(cut.errorEvent(firstEvent), () => res.destroy());
    };

    const forward = (chunk: Buffer): void => {
      if (outcome.cut || outcome.clientGone) return;
      if (!splitter || !cut) {
        if (!res.write(chunk)) {
          upstream.pause();
          res.once('drain', () => upstream.resume());
        }
        return;
      }
      // Hold one event back: when the stream ends before the cut point, the cut still happens.
      held.push(...splitter.push(chunk));
      while (held.length > 1 && forwarded < cut.afterEvents) {
        const event = held.shift()!;
        firstEvent ??= event.toString('utf8');
        res.write(event);
        forwarded++;
      }
      if (forwarded >= cut.afterEvents) doCut();
    };

    // The upstream's parser hands over many small body pieces from one socket read, all in one
    // tick. They go out together at the end of that tick, in one write: nothing is held back past
    // the moment it arrived, and the per-write cost is paid once per read, not once per piece.
    let batch: Buffer[] = [];
    let scheduled = false;
    const flush = (): void => {
      scheduled = false;
      if (batch.length === 0) return;
      const chunk = batch.length === 1 ? batch[0]! : Buffer.concat(batch);
      batch = [];
      forward(chunk);
      collector.push(chunk);
    };
    upstream.on('data', (chunk: Buffer) => {
      batch.push(chunk);
      if (!scheduled) {
        scheduled = true;
        process.nextTick(flush);
      }
    });
    upstream.once('end', () => {
      flush();
      if (cut && !outcome.cut && !outcome.clientGone) doCut();
      else if (!outcome.cut && !outcome.clientGone) res.end();
      settle();
    });
    upstream.once('error', () => {
      if (outcome.clientGone) return settle(); // we hung up on it ourselves
      outcome.upstreamFailed = true;
      flush();
      if (!outcome.cut) res.destroy(); // the client sees the response break off, as it did upstream
      settle();
    });
    upstream.once('aborted', () => {
      if (!outcome.clientGone) outcome.upstreamFailed = true;
    });
    res.once('close', () => {
      if (res.writableFinished || outcome.cut) return;
      outcome.clientGone = true;
      // Stop generating tokens nobody will read.
      upstream.destroy();
      settle();
    });
  });
}
