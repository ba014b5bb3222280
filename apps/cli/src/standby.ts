// `intutic start --standby MARK`: a proxy process started ahead of its repetition. A chaos worker
// keeps one loaded (libs/runner/src/proxy-standby.ts), so that a repetition's proxy listens within
// milliseconds instead of the few hundred a Node process takes to start and load the proxy.
// It reads one line from stdin, a JSON object { args, env }: the `intutic start` arguments, and the
// variables added to its environment (the repetition's key stand-ins, its run id), which never
// appear in argv. Then it is `intutic start` with them. Its stdin stays open while the worker wants
// it: when stdin ends (the worker is gone, or never sent an order) the proxy stops as on SIGTERM.
// MARK is for the process list only: the runner records it to know the process as its own.
import type { Readable } from 'node:stream';
import { IntuticError } from '@intutic/errors';

export interface StandbyOrder {
  args: string[];
  env: Record<string, string>;
}

/** An order is a few KB at most (paths, a few keys); a line past this is not one. */
const MAX_ORDER_BYTES = 1024 * 1024;

export function isStandby(argv: readonly string[]): boolean {
  return argv.length === 3 && argv[0] === 'start' && argv[1] === '--standby';
}

/** The order, once its line is in; null when stdin ends or `signal` fires first. */
export function readOrder(input: Readable, signal: AbortSignal): Promise<StandbyOrder | null> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    const finish = (settle: () => void) => {
      input.off('data', onData);
      input.off('end', onEnd);
      input.off('error', onEnd);
      signal.removeEventListener('abort', onEnd);
      settle();
    };
    const onEnd = () => finish(() => resolve(null));
    const onData = (chunk: Buffer) => {
      const newline = chunk.indexOf(0x0a);
      parts.push(newline === -1 ? chunk : chunk.subarray(0, newline));
      size += chunk.length;
      if (newline === -1 && size <= MAX_ORDER_BYTES) return;
      finish(() => {
        try {
          resolve(parseOrder(Buffer.concat(parts).toString('utf8'), newline !== -1));
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
    };
    if (signal.aborted) return resolve(null);
    signal.addEventListener('abort', onEnd, { once: true });
    input.on('data', onData);
    input.once('end', onEnd);
    input.once('error', onEnd);
  });
}

function parseOrder(line: string, whole: boolean): StandbyOrder {
  const refuse = (why: string) =>
    new IntuticError('E_USAGE', `start --standby: ${why}`, {
      hints: ['a standby proxy takes one line on stdin: {"args": ["--host", …], "env": {"NAME": "value"}}'],
    });
  if (!whole) throw refuse(`the order on stdin is longer than ${MAX_ORDER_BYTES} bytes`);
  let order: unknown;
  try {
    order = JSON.parse(line);
  } catch {
    throw refuse('the order on stdin is not JSON');
  }
  const { args, env } = (order ?? {}) as { args?: unknown; env?: unknown };
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) throw refuse('the order needs "args", an array of strings');
  if (typeof env !== 'object' || env === null || Array.isArray(env) || !Object.values(env).every((v) => typeof v === 'string')) {
    throw refuse('the order needs "env", an object of strings');
  }
  return { args, env: env as Record<string, string> };
}
