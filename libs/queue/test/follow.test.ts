// waitForRun reads the scoring job, then its state. A job that completes between the two reads is
// 'completed' while the copy read first has no result yet: the follower must read it again rather
// than report a run with no result (seen in CI under load).
import { describe, expect, it } from 'vitest';
import { waitForRun, type RunQueue } from '../src/index.ts';

const result = { verdict: 'scored', score: 80, report_path: '/tmp/r.json', report: {} };

function queueWith(reads: { returnvalue: unknown; state: string }[]): RunQueue {
  let i = 0;
  const getJob = async () => {
    const read = reads[Math.min(i++, reads.length - 1)]!;
    return { returnvalue: read.returnvalue, getState: async () => read.state };
  };
  return { queue: { getJob } } as unknown as RunQueue;
}

describe('following a run to its end', () => {
  it('reads the scoring job again when it completed after the first read', async () => {
    const rq = queueWith([
      { returnvalue: null, state: 'completed' },
      { returnvalue: result, state: 'completed' },
    ]);
    expect(await waitForRun(rq, 'run-1', { pollMs: 1 })).toEqual({ state: 'completed', result });
  });

  it('still says so when a completed scoring job has no result at all', async () => {
    const rq = queueWith([{ returnvalue: null, state: 'completed' }]);
    expect(await waitForRun(rq, 'run-1', { pollMs: 1 })).toEqual({ state: 'failed', reason: 'the scoring job returned no result' });
  });
});
