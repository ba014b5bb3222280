import { describe, expect, it } from 'vitest';
import { ExitTrailerFilter, newTrailerNonce } from '../src/exit-trailer.ts';

const NONCE = newTrailerNonce();
const trailer = (code: number, nonce = NONCE): string => `intutic-exit-${nonce} ${code}\n`;

/** The stream cut into chunks at the given offsets, through a filter: what was passed on, and the codes said. */
function filtered(stream: string, cuts: number[]): { output: string; codes: number[] } {
  const passed: Buffer[] = [];
  const codes: number[] = [];
  const filter = new ExitTrailerFilter(
    NONCE,
    (chunk) => passed.push(Buffer.from(chunk)),
    (code) => codes.push(code),
  );
  const bytes = Buffer.from(stream, 'utf8');
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    filter.push(bytes.subarray(from, cut));
    from = cut;
  }
  filter.end();
  return { output: Buffer.concat(passed).toString('utf8'), codes };
}

/** Every way of cutting the stream in two, and in three around the trailer. */
function everyCut(stream: string): number[][] {
  const length = Buffer.byteLength(stream);
  const cuts: number[][] = [[]];
  for (let i = 1; i < length; i++) cuts.push([i]);
  for (let i = Math.max(1, length - 60); i < length; i++) for (let j = i + 1; j < length; j++) cuts.push([i, j]);
  return cuts;
}

describe('the exit trailer filter', () => {
  it('takes the trailer out of stdout and says its code, however the stream is cut', () => {
    const output = 'line one\nno newline at the end, ü';
    for (const cuts of everyCut(output + trailer(3))) {
      expect(filtered(output + trailer(3), cuts), String(cuts)).toEqual({ output, codes: [3] });
    }
  });

  it('passes on what only looks like a trailer: another nonce, a cut-off marker, a code that is not one', () => {
    const cases = [
      `${trailer(0, newTrailerNonce())}`,
      `intutic-exit-${NONCE.slice(0, 10)}`,
      `almost: intutic-exit-${NONCE}`,
      `intutic-exit-${NONCE} x1\n`,
      `intutic-exit-${NONCE} 1234567890\n`,
    ];
    for (const stream of cases) {
      for (const cuts of everyCut(stream)) expect(filtered(stream, cuts), `${stream} ${String(cuts)}`).toEqual({ output: stream, codes: [] });
    }
  });

  it('says nothing for output without a trailer (a stopped sandbox), and passes it all on', () => {
    expect(filtered('killed mid-line', [4])).toEqual({ output: 'killed mid-line', codes: [] });
    expect(filtered('', [])).toEqual({ output: '', codes: [] });
  });

  it('holds back no more than a marker could need', () => {
    let passed = 0;
    const filter = new ExitTrailerFilter(
      NONCE,
      (chunk) => (passed += chunk.length),
      () => undefined,
    );
    filter.push(Buffer.from(`${'x'.repeat(1000)}intutic-exit-`));
    expect(passed).toBe(1000);
  });
});
