import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../src/framing.ts';

describe('LineSplitter', () => {
  it('splits chunks into lines the way the SDK frames stdio, keeping each line raw', () => {
    const splitter = new LineSplitter();
    expect(splitter.push(Buffer.from('{"a":1}\n{"b"'))).toEqual(['{"a":1}']);
    expect(splitter.push(Buffer.from(':2}\r\n'))).toEqual(['{"b":2}']);
    expect(splitter.push(Buffer.from('{"c":3}\n{"d":4}\n'))).toEqual(['{"c":3}', '{"d":4}']);
  });

  it('reassembles a multi-byte character split across chunks', () => {
    const bytes = Buffer.from('{"t":"é✓"}\n');
    const splitter = new LineSplitter();
    const lines = [...splitter.push(bytes.subarray(0, 7)), ...splitter.push(bytes.subarray(7, 9)), ...splitter.push(bytes.subarray(9))];
    expect(lines).toEqual(['{"t":"é✓"}']);
  });

  it('keeps whitespace inside a line untouched', () => {
    expect(new LineSplitter().push(Buffer.from('  {"a": [1, 2]}  \n'))).toEqual(['  {"a": [1, 2]}  ']);
  });
});
