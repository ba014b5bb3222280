import { describe, expect, it } from 'vitest';
import { encodeEnvBlock, ENV_BLOCK_END, ENV_BLOCK_HEADER } from '../src/env-block.ts';

const NONCE = '0123456789abcdef0123456789abcdef';

describe('the env block', () => {
  it('frames each named value as \\xHH bytes on its own line between a header and an end marker', () => {
    const value = 'two\nlines \'quoted\' "dq" $HOME `tick` ü';
    const { block, passed, missing } = encodeEnvBlock(['API_KEY', 'PLAIN'], { API_KEY: value, PLAIN: 'x', OTHER: 'never' }, NONCE);
    const lines = block.toString('utf8').split('\n');
    expect(lines[0]).toBe(`${ENV_BLOCK_HEADER} ${NONCE}`);
    expect(lines.at(-2)).toBe(ENV_BLOCK_END);
    expect(lines.at(-1)).toBe('');
    const [name, encoded] = lines[1]!.split(' ');
    expect(name).toBe('API_KEY');
    expect(encoded).toMatch(/^(\\x[0-9a-f]{2})+$/);
    expect(Buffer.from(encoded!.replaceAll('\\x', ''), 'hex').toString('utf8')).toBe(value);
    expect(passed).toEqual(['API_KEY', 'PLAIN']);
    expect(missing).toEqual([]);
    // Values never appear in the clear, and unnamed variables not at all.
    expect(block.toString()).not.toContain('two');
    expect(block.toString()).not.toContain('never');
  });

  it('reports names the environment does not set instead of sending them', () => {
    const { block, passed, missing } = encodeEnvBlock(['SET', 'UNSET', 'SET'], { SET: '' }, NONCE);
    expect(passed).toEqual(['SET']);
    expect(missing).toEqual(['UNSET']);
    expect(block.toString()).toBe(`${ENV_BLOCK_HEADER} ${NONCE}\nSET \n${ENV_BLOCK_END}\n`);
  });

  it('rejects a name a shell could not export', () => {
    for (const bad of ['1ABC', 'A-B', 'A B', '', 'A=B', 'A\nB']) {
      expect(() => encodeEnvBlock([bad], { [bad]: 'x' }, NONCE), bad).toThrow(/not a valid environment variable name/);
    }
  });
});
