// Benchmark (issue 37): a suite of 9 cells (3 experiments × 3 profiles, one baseline and one faulted
// repetition each, the fewest a run has) whose agent is `sleep S`, enqueued as `chaos suite` does (ONE
// flow) on 1 worker and then on 2, each on a fresh queue prefix. Workers are processes of their own
// (scripts/bench/_suite-workers.ts: the real processor, concurrency 1), started and online before the
// clock starts. Timed: from enqueueing the suite to its suite job completed. Target: 2 workers at
// least 1.8× the speed of 1. Its Redis keys and processes are removed however it ends, short of a
// SIGKILL (then its workers still stop themselves; its keys stay, under intutic-test-bench-suite-workers-*).
//   node scripts/bench/suite-workers.mjs [seconds=1]   (S, each repetition's `sleep`)
import { once } from 'node:events';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';
import { startChild } from './_children.mjs';
import { emitRow } from './_rows.mjs';

register();
const { RunQueue, suiteJobId } = await import('@intutic/queue');
const { deleteKeys, REDIS_URL, testPayload, uniquePrefix } = await import('@intutic/queue/testing');
const { redisRequirement } = await import('@intutic/testkit');

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const seconds = Number(process.argv[2] ?? 1);
const EXPERIMENTS = ['exp-a', 'exp-b', 'exp-c'];
const PROFILES = ['claude-code', 'codex', 'gemini-cli'];
const TARGET = 1.8;
const PHASE_TIMEOUT_MS = 60_000;
const WORKER_START_MS = 30_000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** `promise`, or a rejection saying `what` once `ms` have passed. */
function within(ms, what, promise) {
  let timer;
  const late = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(what)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** The suite's payload and its 9 cells (repeat 1), as `chaos suite` builds them. */
function suiteOf(suiteId) {
  const cells = [];
  const plan = [];
  for (const experiment of EXPERIMENTS) {
    for (const profile of PROFILES) {
      const payload = testPayload(1, `${suiteId}-${experiment}-${profile}`);
      payload.experiment = { ...payload.experiment, name: experiment, agent: `sleep ${seconds}` };
      cells.push(payload);
      plan.push({ experiment, profile, run_id: payload.run_id });
    }
  }
  for (const cell of cells) cell.suite = { id: suiteId, cost_ceiling_usd: null, run_ids: plan.map((c) => c.run_id) };
  const suite = {
    suite_id: suiteId,
    name: 'bench-suite-workers',
    file: 'suite.yaml',
    created_at: new Date().toISOString(),
    repetitions: 1,
    cost_ceiling_usd: null,
    profiles: PROFILES.map((id) => ({ id, agent: id, model: null, image: `intutic/agent-sandbox:bench-${id}` })),
    experiments: EXPERIMENTS.map((name) => ({ name, file: `${name}.yaml`, fault: 'egress.dns_fail' })),
    cells: plan,
    report_path: `/tmp/intutic-bench-suite-workers/${suiteId}/suite-report.json`,
    generator_version: '0.1.0',
  };
  return { suite, cells };
}

const prefixes = [];
const workers = [];
const queues = [];

async function stopWorkers() {
  for (const child of workers.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  }
}

/** Stop the workers, then remove the keys (a worker still online would write some again); once. */
let cleaning = null;
function cleanUp() {
  cleaning ??= (async () => {
    await stopWorkers();
    for (const queue of queues.splice(0)) await queue.close().catch(() => undefined);
    for (const prefix of prefixes.splice(0)) await deleteKeys(prefix, REDIS_URL);
  })();
  return cleaning;
}

/** Wall time in ms, enqueue to suite job completed, on `n` worker processes; and who ran the repetitions. */
async function suiteOn(n) {
  const prefix = uniquePrefix(`bench-suite-workers-${n}`);
  prefixes.push(prefix);
  for (let i = 0; i < n; i++) {
    const args = ['--import', 'tsx', 'scripts/bench/_suite-workers.ts', prefix, `suite-${n}-w${i}`, String(seconds)];
    const { child } = await within(
      WORKER_START_MS,
      `worker ${i} did not come online within ${WORKER_START_MS / 1000} s`,
      startChild(root, args, /^worker ready (\S+)/),
    );
    workers.push(child);
  }
  const queue = new RunQueue({ url: REDIS_URL, prefix });
  queues.push(queue);
  const { suite, cells } = suiteOf(`bench-${n}w-${Date.now().toString(36)}`);
  const enqueuedAt = Date.now();
  await queue.enqueueSuite(suite, cells);
  const deadline = enqueuedAt + PHASE_TIMEOUT_MS;
  let job;
  for (;;) {
    job = await queue.getJob(suiteJobId(suite.suite_id));
    const state = await job.getState();
    if (state === 'completed') break;
    if (state === 'failed') throw new Error(`the suite job failed: ${job.failedReason}`);
    if (workers.some((w) => w.exitCode !== null || w.signalCode !== null)) throw new Error(`a worker process exited while the suite on ${n} worker(s) ran`);
    if (Date.now() > deadline) throw new Error(`the suite on ${n} worker(s) did not finish within ${PHASE_TIMEOUT_MS / 1000} s (suite job ${state})`);
    await sleep(50);
  }
  const notDone = job.returnvalue.cells.filter((c) => c.status !== 'done');
  if (notDone.length) throw new Error(`${notDone.length} cell(s) not done: ${notDone.map((c) => `${c.experiment}×${c.profile}: ${c.reason}`).join('; ')}`);
  const ranBy = {};
  for (const repetition of await queue.queue.getJobs(['completed'])) {
    if (repetition.name === 'repetition') ranBy[repetition.processedBy] = (ranBy[repetition.processedBy] ?? 0) + 1;
  }
  await stopWorkers();
  return { ms: job.finishedOn - enqueuedAt, ranBy };
}

// Stopped from outside (npm run bench's time budget, Ctrl-C): clean up before going.
let interrupted = null;
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, () => {
    interrupted = signal;
    console.error(`${signal}: stopping the workers and removing the benchmark's Redis keys`);
    void cleanUp().finally(() => process.exit(1));
  });
}

const redis = await redisRequirement(REDIS_URL);
if (!redis.ok) throw new Error(redis.reason);
try {
  const took = {};
  for (const n of [1, 2]) {
    const { ms, ranBy } = await suiteOn(n);
    took[n] = ms;
    const split = Object.entries(ranBy)
      .map(([name, count]) => `${name} ${count}`)
      .join(', ');
    console.log(`  ${n} worker(s): 9 cells × 2 repetitions of \`sleep ${seconds}\` in ${(ms / 1000).toFixed(2)} s (repetitions by worker: ${split})`);
  }
  const speedUp = took[1] / took[2];
  console.log(`  speed-up on 2 workers: ${speedUp.toFixed(2)}x   target >= ${TARGET}x: ${speedUp >= TARGET ? 'met' : 'NOT met'}`);
  emitRow({
    row: 'suite: 9 sleep cells, 2 workers vs 1',
    measured: took[2] / 1000,
    baseline: took[1] / 1000,
    unit: 's',
    ratio: speedUp,
    target: `speed-up >= ${TARGET}x`,
    met: speedUp >= TARGET,
    note: `1 worker ${(took[1] / 1000).toFixed(1)} s, 2 workers ${(took[2] / 1000).toFixed(1)} s; enqueue to suite job completed, repetitions of \`sleep ${seconds}\``,
  });
} catch (error) {
  // Interrupted: what broke is the clean-up closing the queue under the run; the signal's handler exits.
  if (!interrupted) throw error;
} finally {
  await cleanUp();
}
