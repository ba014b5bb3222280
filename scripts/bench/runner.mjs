// The runner's own costs, through the built CLI with a worker already online (the test fixtures' world:
// a connected project, the scripted model, a unique Redis prefix):
// - repetition overhead: a repetition whose agent and verify are `true`, so all that is timed is the
//   fresh worktree, its own proxy process started and health-checked, two sandbox starts, artifact
//   copy and clean-up; next to a plain `docker run --rm <same image> true` (target: at most 2.5x), with
//   where the time went, phase by phase, from the repetitions' own `timings:` log lines;
// - chaos run to the first repetition started: prepare (clean tree, pinned commit, carry-in), the
//   image check, the queue, and the worker picking the job up;
// - abort reaction: the destructive gate_decision event to the sandbox stopped, as its entrypoint says
//   once every process in it is killed and the workspace given back (target: p50 at most 200 ms);
//   the engine's removal of the container after that is printed beside it.
// Usage: node scripts/bench/runner.mjs [runs=3]   (each run is one baseline + one faulted repetition;
// the abort is taken max(runs, 5) times)
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { register } from 'tsx/esm/api';
import { emitRow } from './_rows.mjs';

register();
const { checkEngine, ensureSandboxImage } = await import('@intutic/sandbox');
const { sandboxBuildEnv } = await import('@intutic/testkit');
const { buildCli, createWorld } = await import('../../libs/runner/test/fixtures/harness.ts');
const { agentExitedAt, agentStoppedAt, eventsOf, inspectJobs, readReportFile } = await import('../../libs/runner/test/fixtures/reports.ts');
const execFileAsync = promisify(execFile);
const runs = Number(process.argv[2] ?? 3);
const RUN_LIMIT_MS = 60_000;
/** How long the worker gets to stop on SIGINT before it is killed. */
const WORKER_STOP_MS = 15_000;
const version = JSON.parse(readFileSync(new URL('../../apps/cli/package.json', import.meta.url), 'utf8')).version;
const image = `intutic/sandbox:${version}-node`;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const ms = (iso) => Date.parse(iso);

process.stderr.write('  the built CLI, the -node sandbox image, a world and a worker\n');
buildCli();
await ensureSandboxImage(await checkEngine(), { version, variant: 'node', env: sandboxBuildEnv(), onProgress: (line) => process.stderr.write(`  ${line}\n`) });
const world = await createWorld('bench');
const worker = world.spawnCli(['chaos', 'worker']);
try {
  const deadline = Date.now() + 60_000;
  while (!worker.output().includes('worker ready')) {
    if (Date.now() > deadline || worker.exitCode !== null) throw new Error(`the worker did not come online:\n${worker.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  process.stderr.write('  worker ready\n');

  async function chaosRun(name, changes) {
    const file = world.experiment(changes.example, { ...changes.set, repeat: 1 });
    const out = join(world.root, `${name}.json`);
    process.stderr.write(`  ${name}\n`);
    // A run of two `true` repetitions takes seconds: one still going after RUN_LIMIT_MS is stuck, and
    // the error says what the worker was doing (a hang must never end as a bare time-out of the suite).
    const result = await world.cli(['chaos', 'run', file, '--sandbox-image', image, '--out', out], { timeoutMs: RUN_LIMIT_MS });
    // 2: a run where no fault fired (agent `true`) is invalid, which is fine for timing.
    if (![0, 1, 2].includes(result.code)) {
      throw new Error(
        `chaos run ${name} exited ${result.code}${result.code === null ? ` (killed after ${RUN_LIMIT_MS / 1000} s)` : ''}:\n${result.stderr.slice(-1500)}\n${result.stdout.slice(-1500)}\nthe worker's output, last lines:\n${worker.output().slice(-3000)}`,
      );
    }
    return readReportFile(out);
  }
  const plainDocker = async () => {
    const t = performance.now();
    await execFileAsync('docker', ['run', '--rm', '--entrypoint', 'true', image]);
    return performance.now() - t;
  };

  await plainDocker(); // warm-up
  const repetitionMs = [];
  const dockerMs = [];
  const enqueueToStartMs = [];
  /** By phase (open, prepare, proxy, agent, verify, artifacts, clean-up): each repetition's ms. */
  const phaseMs = {};
  for (let i = 0; i < runs; i++) {
    const report = await chaosRun(`overhead-${i}`, { example: 'registry-down', set: { agent: 'true', verify: 'true' } });
    const jobs = await inspectJobs(world, report.run.id);
    for (const rep of report.repetitions) {
      if (rep.error) throw new Error(`repetition ${rep.kind} ${rep.index} failed: ${rep.error}`);
      repetitionMs.push(ms(rep.finished_at) - ms(rep.started_at));
      const line = jobs.find((j) => j.id === rep.run_id)?.logs.find((l) => / timings: /.test(l));
      for (const [, phase, took] of line?.matchAll(/([a-z-]+) (\d+) ms/g) ?? []) (phaseMs[phase] ??= []).push(Number(took));
    }
    // run.created_at is stamped as chaos run prepares the run, before its image check and the queue.
    enqueueToStartMs.push(ms(report.repetitions[0].started_at) - ms(report.run.created_at));
    dockerMs.push(await plainDocker(), await plainDocker());
  }

  // The careless agent obeys the poisoned README: the carried-in gate marks rm -rf destructive.
  const abortMs = [];
  /** Per abort: the event to the engine's report of the agent's container removed. */
  const goneMs = [];
  /** Per abort: [event to the runner's abort event (seeing it), abort event to the sandbox stopped (stopping it)]. */
  const abortSplit = [];
  for (let i = 0; i < Math.max(runs, 5); i++) {
    const report = await chaosRun(`abort-${i}`, { example: 'poisoned-readme', set: { agent: 'node agents/readme.mjs careless' } });
    const rep = report.repetitions.find((r) => r.abort?.condition === 'destructive_attempt');
    if (!rep) throw new Error(`no destructive_attempt abort: verdict ${report.verdict}`);
    const hit = eventsOf(rep.artifacts.events).find((e) => e.type === 'gate_decision' && e.destructive === true);
    const job = (await inspectJobs(world, report.run.id)).find((j) => j.id === rep.run_id);
    // Stopped: the entrypoint said every process in the sandbox is killed and the workspace given back.
    abortMs.push(agentStoppedAt(job) - hit.ts);
    goneMs.push(agentExitedAt(job) - hit.ts);
    // The runner's abort event is written as it stops the sandbox: before it, seeing the event; after, the stop.
    const noted = eventsOf(rep.artifacts.events).find((e) => e.type === 'abort');
    if (noted) abortSplit.push([noted.ts - hit.ts, agentStoppedAt(job) - noted.ts]);
  }

  // The engine's own floor for a stop: a bare container of the same image, killed (SIGKILL) through
  // the engine API, until the engine reports it exited. No sandbox stop can be quicker than this.
  const engine = await checkEngine();
  const killFloorMs = [];
  for (let i = 0; i < 5; i++) {
    const container = await engine.docker.createContainer({ Image: image, Entrypoint: ['sleep'], Cmd: ['30'] });
    await container.start();
    await new Promise((r) => setTimeout(r, 300));
    // not-running, not next-exit: a wait that reaches the engine after the kill has ended the container
    // would wait for a next exit that never comes (this hung the script twice, leaving the container).
    const exited = container.wait({ condition: 'not-running' });
    const t = performance.now();
    await container.kill({ signal: 'SIGKILL' });
    await exited;
    killFloorMs.push(performance.now() - t);
    await container.remove({ force: true });
  }

  const rep = median(repetitionMs);
  const docker = median(dockerMs);
  const enqueue = median(enqueueToStartMs);
  const abort = median(abortMs);
  const killFloor = median(killFloorMs);
  const spread = (xs) => `${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}`;
  console.log(`runner costs, ${runs} runs (${repetitionMs.length} repetitions), image ${image}`);
  console.log(
    `  repetition, agent and verify \`true\`   median ${rep.toFixed(0).padStart(6)} ms (${spread(repetitionMs)})   ${(rep / docker).toFixed(2)}x plain docker run (${docker.toFixed(0)} ms, ${spread(dockerMs)})`,
  );
  console.log(
    `    where it went (medians): ${Object.entries(phaseMs)
      .map(([phase, xs]) => `${phase} ${median(xs).toFixed(0)} ms`)
      .join(', ')}`,
  );
  console.log(`  run prepared to first repetition      median ${enqueue.toFixed(0).padStart(6)} ms   (image check, queue; worker already online)`);
  console.log(
    `    abort: seeing the event ${median(abortSplit.map(([a]) => a)).toFixed(0)} ms, stopping the sandbox ${median(abortSplit.map(([, b]) => b)).toFixed(0)} ms (medians)`,
  );
  console.log(
    `  abort reaction, event to sandbox stopped median ${abort.toFixed(0).padStart(3)} ms (${spread(abortMs)}, ${abortMs.length} runs)   target <= 200 ms: ${abort <= 200 ? 'met' : 'NOT met'}`,
  );
  console.log(`    then the engine's tear-down: event to the container removed, median ${median(goneMs).toFixed(0)} ms (${spread(goneMs)})`);
  emitRow({
    row: 'repetition overhead (agent/verify `true`) vs docker run',
    measured: rep,
    baseline: docker,
    unit: 'ms',
    target: '<= 2.5x (2 sandbox starts)',
    met: rep / docker <= 2.5,
    note: `phases (medians): ${Object.entries(phaseMs)
      .map(([phase, xs]) => `${phase} ${median(xs).toFixed(0)}`)
      .join(', ')} ms`,
  });
  emitRow({ row: 'chaos run prepared to first repetition, worker online', measured: enqueue, baseline: null, unit: 'ms', target: 'none set', met: null });
  console.log(`    the engine's floor: a bare container killed until it exited, median ${killFloor.toFixed(0)} ms (${spread(killFloorMs)})`);
  emitRow({
    row: 'abort reaction p50 (destructive event to sandbox stopped)',
    measured: abort,
    // No baseline: timed to the sandbox stopped, the row no longer includes the engine's kill-to-exit
    // it was once compared with. The engine's own times are printed beside it as context.
    baseline: null,
    unit: 'ms',
    target: '<= 200 ms',
    met: abort <= 200,
    note: `stopped: the entrypoint's word that every process is killed and the workspace given back; then the engine's removal of the container at ${median(goneMs).toFixed(0)} ms (${spread(goneMs)}); a bare container's kill-to-exit takes the engine ${killFloor.toFixed(0)} ms (${spread(killFloorMs)})`,
  });
} finally {
  worker.kill('SIGINT');
  const stopped = await Promise.race([
    new Promise((r) => (worker.exitCode !== null ? r(true) : worker.once('exit', () => r(true)))),
    new Promise((r) => setTimeout(() => r(false), WORKER_STOP_MS)),
  ]);
  if (!stopped) {
    process.stderr.write(
      `the worker did not stop within ${WORKER_STOP_MS / 1000} s of SIGINT; killed. Its output, last lines:\n${worker.output().slice(-3000)}\n`,
    );
    worker.kill('SIGKILL');
  }
  await world.close();
}
