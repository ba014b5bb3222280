// waitForRun reads the scoring job, then its state. A job that completes (or fails) between the two
// reads is 'completed' ('failed') while the copy read first has no result (failure reason) yet: the
// follower must read it again rather than report a run with no result, or "unknown reason" for a run
// that failed for a reason it could say (both seen in CI under load).
import { describe, expect, it } from 'vitest';
import { waitForRun, type RunQueue } from '../src/index.ts';

const result = { verdict: 'scored', score: 80, report_path: '/tmp/r.json', report: {} };

function queueWith(reads: { returnvalue: unknown; state: string; failedReason?: string }[]): RunQueue {
  let i = 0;
  const getJob = async () => {
    const read = reads[Math.min(i++, reads.length - 1)]!;
    return { returnvalue: read.returnvalue, failedReason: read.failedReason, getState: async () => read.state };
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

  it('reads the scoring job again when it failed after the first read, to say why', async () => {
    const rq = queueWith([
      { returnvalue: null, state: 'failed' },
      { returnvalue: null, state: 'failed', failedReason: 'the disk is full: no space left in /tmp/x' },
    ]);
    expect(await waitForRun(rq, 'run-1', { pollMs: 1 })).toEqual({ state: 'failed', reason: 'the disk is full: no space left in /tmp/x' });
  });
});
