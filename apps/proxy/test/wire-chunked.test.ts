// The chunked decoder under the relay's pass-through: for any chunking of the body and any way the
// socket splits it, the payload is the body's content, and the raw bytes passed on are exactly the
// upstream's framing up to (not including) the last chunk — so the client, given those bytes plus
// node:http's own `0\r\n\r\n`, reads the same body.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChunkedDecoder, ChunkedFormatError } from '../src/wire/chunked.ts';

function frame(chunks: Buffer[], last = '0\r\n\r\n'): Buffer {
  const parts: Buffer[] = [];
  for (const chunk of chunks) parts.push(Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n'));
  parts.push(Buffer.from(last));
  return Buffer.concat(parts);
}

/** Splits `bytes` at the given cut points (fractions of its length). */
function split(bytes: Buffer, cuts: number[]): Buffer[] {
  const at = [...new Set(cuts.map((c) => Math.floor(c * bytes.length)))].sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let from = 0;
  for (const cut of at) {
    pieces.push(bytes.subarray(from, cut));
    from = cut;
  }
  pieces.push(bytes.subarray(from));
  return pieces;
}

function decodeAll(pieces: Buffer[]) {
  const decoder = new ChunkedDecoder();
  const payload: Buffer[] = [];
  const raw: Buffer[] = [];
  let done = false;
  let excess = 0;
  for (const piece of pieces) {
    const out = decoder.push(piece);
    payload.push(Buffer.from(out.payload)); // valid only until the next push
    raw.push(out.raw);
    done = out.done;
    excess += out.excess;
  }
  return { payload: Buffer.concat(payload), raw: Buffer.concat(raw), done, excess };
}

describe('ChunkedDecoder', () => {
  it('decodes any chunking, split anywhere, and passes on the framing up to the last chunk', () => {
    const chunk = fc.uint8Array({ minLength: 1, maxLength: 300 }).map((a) => Buffer.from(a));
    const last = fc.constantFrom('0\r\n\r\n', '0;ext=1\r\n\r\n', '000\r\nx-trailer: 1\r\n\r\n');
    fc.assert(
      fc.property(
        fc.array(chunk, { maxLength: 20 }),
        last,
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 12 }),
        (chunks, lastChunk, cuts) => {
          const body = frame(chunks, lastChunk);
          const out = decodeAll(split(body, cuts));
          expect(out.payload.equals(Buffer.concat(chunks))).toBe(true);
          expect(out.raw.equals(frame(chunks, ''))).toBe(true);
          expect(out.done).toBe(true);
          expect(out.excess).toBe(0);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('holds back a size line split between reads until it is known not to be the last chunk', () => {
    const decoder = new ChunkedDecoder();
    const first = decoder.push(Buffer.from('5\r\nhello\r\n1'));
    expect(first.raw.toString()).toBe('5\r\nhello\r\n');
    const second = decoder.push(Buffer.from('0\r\n0123456789abcdef\r\n0\r'));
    expect(second.raw.toString()).toBe('10\r\n0123456789abcdef\r\n');
    expect(second.payload.toString()).toBe('0123456789abcdef');
    const third = decoder.push(Buffer.from('\n\r\n'));
    expect(third.raw.length).toBe(0);
    expect(third.done).toBe(true);
  });

  it('accepts bare LF line ends and upper-case hex; counts bytes after the end as excess', () => {
    const out = decodeAll([Buffer.from('A\nabcdefghij\n0\n\nHTTP/1.1 200')]);
    expect(out.payload.toString()).toBe('abcdefghij');
    expect(out.done).toBe(true);
    expect(out.excess).toBe('HTTP/1.1 200'.length);
  });

  it.each([
    ['a size that is not hex', 'zz\r\n'],
    ['data longer than its size', '2\r\nabc\r\n'],
    ['a size line without a size', ';ext\r\n'],
    ['a size past 2^48', '1000000000000\r\n'],
    ['garbage after the size', '5 x\r\nhello\r\n'],
  ])('refuses %s', (_, text) => {
    expect(() => decodeAll([Buffer.from(text)])).toThrow(ChunkedFormatError);
  });

  it('refuses a size line that never ends', () => {
    const decoder = new ChunkedDecoder();
    expect(() => {
      for (let i = 0; i < 10; i++) decoder.push(Buffer.alloc(1000, 0x30));
    }).toThrow(/too long/);
  });
});
