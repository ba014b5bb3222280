import { describe, expect, it } from 'vitest';
import { didYouMean, nearest } from '../src/suggest.ts';

describe('did you mean', () => {
  it.each([
    ['a dropped letter', 'retry_afer_s', ['retry_after_s', 'status'], 'retry_after_s'],
    ['swapped letters', 'wieght', ['id', 'weight', 'value'], 'weight'],
    ['a case slip', 'Task_Success', ['task_success', 'no_policy_hits'], 'task_success'],
    ['a word cut short', 'destructive', ['destructive_attempt', 'cost_usd_above'], 'destructive_attempt'],
    ['nothing close', 'banana', ['task_success', 'no_policy_hits'], undefined],
    ['no candidates', 'x', [], undefined],
  ] as const)('%s', (_name, word, candidates, expected) => {
    expect(nearest(word, candidates)).toBe(expected);
  });

  it('falls back to the list of what is allowed', () => {
    expect(didYouMean('banana', ['a1', 'b2'])).toBe(' (expected one of: a1, b2)');
    expect(didYouMean('wieght', ['weight'])).toBe(' (did you mean "weight"?)');
  });
});
