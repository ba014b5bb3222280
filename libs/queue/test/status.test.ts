// A run's jobs as `chaos status` reads them (pure): the list of job ids for both kinds of run, the
// faulted repetitions a --parallel run's gate has not added yet, and the run's state from its jobs.
import { describe, expect, it } from 'vitest';
import { failedClosing, pendingUntilGate, ranFor, runJobIds, runState, type JobView } from '../src/index.ts';

function job(id: string, kind: JobView['kind'], state: JobView['state']): JobView {
  return {
    id,
    kind,
    index: 0,
    state,
    orphaned: false,
    stalled: false,
    created_at: null,
    started_at: null,
    finished_at: null,
    alive_at: null,
    failed_reason: null,
    result: null,
    progress: null,
    logs: [],
  };
}

/** A --parallel run of two repetitions per phase as getRun reads it: the faulted jobs not in Redis. */
function parallelRun(gateState: JobView['state'], faultedState: JobView['state'] = 'missing'): JobView[] {
  return [
    job('r-b1', 'baseline', 'completed'),
    job('r-b2', 'baseline', 'active'),
    job('r-phase-f', 'gate', gateState),
    job('r-f1', 'faulted', faultedState),
    job('r-f2', 'faulted', faultedState),
    job('r-score', 'score', 'waiting-children'),
  ];
}

const states = (jobs: JobView[]) => jobs.map((j) => `${j.id}:${j.state}`);

describe('runJobIds', () => {
  it('lists a sequential run as its chain runs: baselines, faulted repetitions, scoring; no gate', () => {
    expect(runJobIds('r', 2).map((j) => [j.id, j.kind, j.index])).toEqual([
      ['r-b1', 'baseline', 1],
      ['r-b2', 'baseline', 2],
      ['r-f1', 'faulted', 1],
      ['r-f2', 'faulted', 2],
      ['r-score', 'score', 0],
    ]);
    expect(runJobIds('r', 2, { parallel: false })).toEqual(runJobIds('r', 2));
  });

  it('lists a --parallel run with the faulted phase’s gate between the baselines and the faulted repetitions', () => {
    expect(runJobIds('r', 2, { parallel: true }).map((j) => [j.id, j.kind, j.index])).toEqual([
      ['r-b1', 'baseline', 1],
      ['r-b2', 'baseline', 2],
      ['r-phase-f', 'gate', 0],
      ['r-f1', 'faulted', 1],
      ['r-f2', 'faulted', 2],
      ['r-score', 'score', 0],
    ]);
  });
});

describe('pendingUntilGate', () => {
  it('shows the faulted repetitions the gate has yet to add as pending, whatever the gate waits in', () => {
    for (const gate of ['waiting-children', 'prioritized', 'waiting', 'active'] as const) {
      expect(states(pendingUntilGate(parallelRun(gate))), gate).toEqual([
        'r-b1:completed',
        'r-b2:active',
        `r-phase-f:${gate}`,
        'r-f1:pending',
        'r-f2:pending',
        'r-score:waiting-children',
      ]);
    }
  });

  it('leaves a faulted repetition missing once the gate has finished, or when the gate itself is gone', () => {
    for (const gate of ['completed', 'failed', 'missing'] as const) {
      expect(states(pendingUntilGate(parallelRun(gate))).slice(3, 5), gate).toEqual(['r-f1:missing', 'r-f2:missing']);
    }
  });

  it('never touches a faulted repetition that exists, nor a sequential run (no gate)', () => {
    // The gate adds them, then finishes: read in between, they exist while it is still active.
    expect(states(pendingUntilGate(parallelRun('active', 'prioritized'))).slice(3, 5)).toEqual(['r-f1:prioritized', 'r-f2:prioritized']);
    const sequential = parallelRun('completed').filter((j) => j.kind !== 'gate');
    expect(pendingUntilGate(sequential)).toEqual(sequential);
  });
});

describe('runState', () => {
  it('reads a --parallel run just enqueued (baselines queued, gate and scoring waiting, faulted pending) as queued', () => {
    const enqueued = [
      job('r-b1', 'baseline', 'prioritized'),
      job('r-b2', 'baseline', 'prioritized'),
      job('r-phase-f', 'gate', 'waiting-children'),
      job('r-f1', 'faulted', 'pending'),
      job('r-f2', 'faulted', 'pending'),
      job('r-score', 'score', 'waiting-children'),
    ];
    expect(runState(enqueued)).toBe('queued');
  });

  it('reads a run as running once a job has started, and by its scoring job once that has ended', () => {
    expect(runState(parallelRun('waiting-children', 'pending'))).toBe('running');
    expect(runState([...parallelRun('completed', 'completed').slice(0, 5), job('r-score', 'score', 'completed')])).toBe('finished');
    expect(runState([...parallelRun('completed', 'completed').slice(0, 5), job('r-score', 'score', 'failed')])).toBe('failed');
  });
});

describe('ranFor: how long a job ran, a dead worker included', () => {
  const at = (s: number) => Date.UTC(2025, 2, 1, 7, 54, 43) + s * 1000;
  const stalled: JobView = {
    ...job('r-b1', 'baseline', 'failed'),
    index: 1,
    stalled: true,
    started_at: at(0),
    alive_at: at(67),
    finished_at: at(130),
    failed_reason: 'its worker stopped in the middle of it',
  };

  it('counts a stalled repetition until its worker last showed life, not until a later worker failed it', () => {
    expect(ranFor(stalled)).toBe(67_000);
    expect(failedClosing(stalled, 'baseline')).toMatchObject({
      type: 'repetition_finished',
      job_id: 'r-b1',
      duration_s: 67,
      error: 'its worker stopped in the middle of it',
    });
  });

  it('counts any other job from its start to its end, and a running one not at all', () => {
    expect(ranFor({ ...stalled, stalled: false, state: 'completed' })).toBe(130_000);
    expect(ranFor({ ...stalled, finished_at: null, state: 'active' })).toBeNull();
  });
});
