import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, hashToolInput } from '../src/index.ts';

const fixture = JSON.parse(readFileSync(new URL('../../gates/conformance/hash.json', import.meta.url), 'utf8')) as {
  cases: { tool: string; input: unknown; hash: string }[];
};

describe('hashToolInput', () => {
  it('matches the shared fixture (the Python SDK checks the same values)', () => {
    for (const c of fixture.cases) expect(hashToolInput(c.tool, c.input)).toBe(c.hash);
  });

  it('ignores key order and depends on tool and input', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.string(), (obj, tool) => {
        const reversed = Object.fromEntries(Object.entries(obj).reverse());
        expect(hashToolInput(tool, reversed)).toBe(hashToolInput(tool, obj));
        expect(hashToolInput(tool + 'x', obj)).not.toBe(hashToolInput(tool, obj));
      }),
    );
  });

  it('is the SHA-256 of the canonical JSON, as node:crypto computes it, for any input', () => {
    // The gates hash in pure JS (no node:crypto at start-up); the Python SDK uses hashlib.
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.jsonValue(), (tool, input) => {
        const reference = createHash('sha256')
          .update(canonicalJson([tool, input ?? null]))
          .digest('hex')
          .slice(0, 32);
        expect(hashToolInput(tool, input)).toBe(reference);
      }),
      { numRuns: 2000 },
    );
  });

  it('differs for different inputs', () => {
    expect(hashToolInput('Bash', { command: 'ls' })).not.toBe(hashToolInput('Bash', { command: 'ls ' }));
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] })).toBe('{"a":[{"c":3,"d":2}],"b":1}');
  });
});
