// Workers that share nothing but Redis, as on machines of their own: each `chaos worker` runs with its
// own INTUTIC_HOME, in a directory of its own, and the checkout the run was enqueued from is gone by
// the time they start, so every worker fetches the pinned commit from the run's remote (a git daemon
// the test starts). A --parallel run spreads each phase over them, the phases stay strict, and the
// report is the one a single worker gives for the same agent. Two workers may share one home: they
// share its cache clone of the remote (libs/workspace/test/worktree.int.test.ts makes the race for
// that clone happen deterministically; here the two real workers rarely collide in time).
// other-host.int.test.ts puts one worker on a test host of its own, with its own engine.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerRequirement, redisRequirement, requireOrSkip } from '@intutic/testkit';
import { buildCli, createWorld, type World } from './fixtures/harness.ts';
import { enqueueFromGoneClone, finishedCarefulRun, serveProject, startedBy, startWorker, stopWorkers, type WorkerProcess } from './fixtures/machines.ts';

const ok = requireOrSkip('workers on other machines', await redisRequirement()) && requireOrSkip('workers on other machines', dockerRequirement());

let world: World;
let served: Awaited<ReturnType<typeof serveProject>>;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  if (!ok) return;
  buildCli();
  world = await createWorld('remote');
  served = await serveProject(world);
}, 600_000);

afterAll(async () => {
  for (const worker of workers) if (worker.exitCode === null) worker.kill('SIGKILL');
  await served?.close();
  await world?.close();
});

const worker = (name: string, home: string) => {
  const started = startWorker(world, name, home);
  workers.push(started);
  return started;
};

describe.skipIf(!ok)('workers that share nothing but Redis', () => {
  it('fetch the pinned commit from the remote, split each phase between them, and give the one-worker report', async () => {
    const runId = await enqueueFromGoneClone(world, served.remote, 'own-homes');
    // Before any worker runs, status shows every job of the run: the gate, and the faulted
    // repetitions it will add as pending.
    const queued = JSON.parse((await world.cli(['chaos', 'status', runId, '--json'])).stdout) as {
      state: string;
      jobs: { id: string; kind: string; state: string }[];
    };
    expect(queued.state).toBe('queued');
    expect(queued.jobs.map((j) => [j.id.slice(runId.length + 1), j.kind, j.state === 'pending' ? 'pending' : 'in Redis'])).toEqual([
      ['b1', 'baseline', 'in Redis'],
      ['b2', 'baseline', 'in Redis'],
      ['phase-f', 'gate', 'in Redis'],
      ['f1', 'faulted', 'pending'],
      ['f2', 'faulted', 'pending'],
      ['score', 'score', 'in Redis'],
    ]);
    const homes = [join(world.root, 'home-a'), join(world.root, 'home-b')];
    const [a, b] = [worker('a', homes[0]!), worker('b', homes[1]!)];
    try {
      await finishedCarefulRun(world, runId);
      // Both machines worked on the run, each from a cache clone of the remote in its own home.
      expect(startedBy(a, runId).length, a.output()).toBeGreaterThan(0);
      expect(startedBy(b, runId).length, b.output()).toBeGreaterThan(0);
      for (const home of homes) expect(readdirSync(join(home, '.intutic', 'chaos', 'repos')).filter((n) => n.endsWith('.git'))).toHaveLength(1);
    } finally {
      await stopWorkers(a, b);
    }
  }, 360_000);

  it('two workers sharing one home run a --parallel run together: one cache clone, nothing of the run left', async () => {
    const runId = await enqueueFromGoneClone(world, served.remote, 'shared-home');
    const home = join(world.root, 'home-shared');
    const [c, d] = [worker('c', home), worker('d', home)];
    try {
      await finishedCarefulRun(world, runId);
      expect(startedBy(c, runId).length + startedBy(d, runId).length).toBe(4);
      // One cache clone, no staging directory left, and no job directory of the run remains.
      expect(readdirSync(join(home, '.intutic', 'chaos', 'repos'))).toHaveLength(1);
      const jobs = join(home, '.intutic', 'chaos', 'jobs');
      expect(existsSync(jobs) ? readdirSync(jobs).filter((n) => n.startsWith(runId)) : []).toEqual([]);
    } finally {
      await stopWorkers(c, d);
    }
  }, 360_000);
});
