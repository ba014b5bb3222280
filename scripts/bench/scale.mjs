// Scale: one phase of 8 repetitions of a fixed-duration agent (`sleep D` in the sandbox, verify
// `true`) on 1, 2 and 4 workers (`chaos worker` processes, concurrency 1 each, one Redis), through the
// built CLI as `chaos run --parallel --detach` enqueues it. Timed: the baseline phase, from its first
// repetition's start to its last one's end; the faulted phase is cancelled once the baseline phase is
// done (it would only repeat the measurement). Target: the speed-up T(1)/T(N) is at least 0.9×N.
// Usage: node scripts/bench/scale.mjs [seconds=20]   (D; each worker count gets one run)
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { register } from 'tsx/esm/api';
import { emitRow } from './_rows.mjs';

register();
const { checkEngine, ensureSandboxImage } = await import('@intutic/sandbox');
const { queueConfigFromEnv, RunQueue } = await import('@intutic/queue');
const { sandboxBuildEnv } = await import('@intutic/testkit');
const { buildCli, createWorld } = await import('../../libs/runner/test/fixtures/harness.ts');
const { inspectJobs } = await import('../../libs/runner/test/fixtures/reports.ts');
const seconds = Number(process.argv[2] ?? 20);
const REPETITIONS = 8;
const WORKERS = [1, 2, 4];
const version = JSON.parse(readFileSync(new URL('../../apps/cli/package.json', import.meta.url), 'utf8')).version;
const image = `intutic/sandbox:${version}-node`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

buildCli();
await ensureSandboxImage(await checkEngine(), { version, variant: 'node', env: sandboxBuildEnv(), onProgress: (line) => process.stderr.write(`  ${line}\n`) });
const world = await createWorld('bench-scale');
const queue = new RunQueue(queueConfigFromEnv(world.env));
const workers = [];

async function startWorkers(n) {
  for (let i = 0; i < n; i++) workers.push(world.spawnCli(['chaos', 'worker', '--name', `scale-${n}-${i}`]));
  const deadline = Date.now() + 60_000;
  while (!workers.every((w) => w.output().includes('worker ready'))) {
    if (Date.now() > deadline || workers.some((w) => w.exitCode !== null))
      throw new Error(`a worker did not come online:\n${workers.map((w) => w.output()).join('\n')}`);
    await sleep(100);
  }
}

async function stopWorkers() {
  for (const worker of workers.splice(0)) {
    worker.kill('SIGTERM');
    await new Promise((r) => (worker.exitCode !== null ? r() : worker.once('exit', r)));
  }
}

/** The baseline phase's wall time on `n` workers, in ms. */
async function phaseOn(n) {
  await startWorkers(n);
  try {
    const file = world.experiment('registry-down', { agent: `sleep ${seconds}`, verify: 'true', repeat: REPETITIONS });
    const enqueued = await world.cli(['chaos', 'run', file, '--sandbox-image', image, '--parallel', '--detach', '--out', join(world.root, `scale-${n}.json`)]);
    if (enqueued.code !== 0) throw new Error(`chaos run --detach exited ${enqueued.code}:\n${enqueued.stderr}`);
    const runId = /run (\S+):/.exec(enqueued.stderr)[1];
    let baselines = [];
    for (;;) {
      baselines = (await inspectJobs(world, runId)).filter((j) => j.kind === 'baseline');
      if (baselines.some((j) => j.state === 'failed')) throw new Error(`a baseline repetition failed: ${baselines.map((j) => j.failed_reason).join('; ')}`);
      if (baselines.every((j) => j.state === 'completed')) break;
      await sleep(500);
    }
    await queue.cancel(runId, 'the scale benchmark measured the baseline phase');
    for (let state = ''; !['finished', 'failed'].includes(state); await sleep(500)) {
      state = JSON.parse((await world.cli(['chaos', 'status', runId, '--json'])).stdout).state;
    }
    return Math.max(...baselines.map((j) => j.finished_at)) - Math.min(...baselines.map((j) => j.started_at));
  } finally {
    await stopWorkers();
  }
}

try {
  const took = {};
  for (const n of WORKERS) {
    took[n] = await phaseOn(n);
    console.log(`  ${n} worker(s): ${REPETITIONS} repetitions of \`sleep ${seconds}\` in ${(took[n] / 1000).toFixed(1)} s`);
  }
  for (const n of WORKERS.slice(1)) {
    const speedUp = took[1] / took[n];
    console.log(`  speed-up on ${n} workers: ${speedUp.toFixed(2)}x   target >= ${(0.9 * n).toFixed(1)}x: ${speedUp >= 0.9 * n ? 'met' : 'NOT met'}`);
    emitRow({
      row: `scale: ${REPETITIONS} repetitions of sleep ${seconds} on ${n} workers vs 1`,
      measured: took[n] / 1000,
      baseline: took[1] / 1000,
      unit: 's',
      ratio: speedUp,
      target: `speed-up >= ${(0.9 * n).toFixed(1)}x`,
      met: speedUp >= 0.9 * n,
      note: 'ratio is the speed-up, T(1)/T(N), of the baseline phase',
    });
  }
} finally {
  await stopWorkers();
  await queue.close();
  await world.close();
}
