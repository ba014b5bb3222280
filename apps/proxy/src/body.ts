// Reading a request body whole, with a size limit so a runaway client cannot exhaust memory, and
// reading it as the JSON object a model call's body is.
import type { IncomingMessage } from 'node:http';

export class BodyTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`request body larger than ${limit} bytes`);
  }
}

export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume(); // drain the rest so the answer can still be written
        reject(new BodyTooLarge(limit));
        return;
      }
      chunks.push(chunk);
    });
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
    req.once('aborted', () => reject(new Error('the client aborted the request')));
  });
}

/**
 * The request body as a JSON object, or why it is not one (said in the 400 the agent gets and in the
 * log). The reason never quotes the body: V8's parse errors do (`Unexpected token 'x', "…" is not
 * valid JSON`), and a body may carry anything, a key included. Only a byte position is kept.
 */
export function requestBody(raw: Buffer): Record<string, unknown> | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch (error) {
    if (raw.length === 0) return 'the body is empty';
    const position = /\bposition (\d+)/.exec((error as Error).message)?.[1];
    return position === undefined ? 'not valid JSON' : `not valid JSON at position ${position}`;
  }
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : 'not a JSON object';
}
