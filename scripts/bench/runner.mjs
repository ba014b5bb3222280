// The runner's own costs, through the built CLI with a worker already online (the test fixtures' world:
// a connected project, the scripted model, a unique Redis prefix): repetition overhead — a repetition
// whose agent and verify are `true`, so all that is timed is worktree, proxy start + health, two
// sandbox starts, artifact copy and cleanup — next to a plain `docker run --rm <same image> true`;
// enqueue-to-start latency; abort reaction (the destructive gate_decision event to the sandbox gone).
// Usage: node scripts/bench/runner.mjs [runs=3]   (each run is one baseline + one faulted repetition)
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
const { agentExitedAt, eventsOf, inspectJobs, readReportFile } = await import('../../libs/runner/test/fixtures/reports.ts');
const execFileAsync = promisify(execFile);
const runs = Number(process.argv[2] ?? 3);
const version = JSON.parse(readFileSync(new URL('../../apps/cli/package.json', import.meta.url), 'utf8')).version;
const image = `intutic/sandbox:${version}-node`;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const ms = (iso) => Date.parse(iso);

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

  async function chaosRun(name, changes) {
    const file = world.experiment(changes.example, { ...changes.set, repeat: 1 });
    const out = join(world.root, `${name}.json`);
    const result = await world.cli(['chaos', 'run', file, '--sandbox-image', image, '--out', out]);
    // 2: a run where no fault fired (agent `true`) is invalid, which is fine for timing.
    if (![0, 1, 2].includes(result.code)) throw new Error(`chaos run exited ${result.code}:\n${result.stderr.slice(-1500)}\n${result.stdout.slice(-1500)}`);
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
  for (let i = 0; i < runs; i++) {
    const report = await chaosRun(`overhead-${i}`, { example: 'registry-down', set: { agent: 'true', verify: 'true' } });
    for (const rep of report.repetitions) {
      if (rep.error) throw new Error(`repetition ${rep.kind} ${rep.index} failed: ${rep.error}`);
      repetitionMs.push(ms(rep.finished_at) - ms(rep.started_at));
    }
    // run.created_at is stamped just before the run is enqueued.
    enqueueToStartMs.push(ms(report.repetitions[0].started_at) - ms(report.run.created_at));
    dockerMs.push(await plainDocker(), await plainDocker());
  }

  // The careless agent obeys the poisoned README: the carried-in gate marks rm -rf destructive.
  const abortMs = [];
  for (let i = 0; i < Math.max(1, Math.min(runs, 2)); i++) {
    const report = await chaosRun(`abort-${i}`, { example: 'poisoned-readme', set: { agent: 'node agents/readme.mjs careless' } });
    const rep = report.repetitions.find((r) => r.abort?.condition === 'destructive_attempt');
    if (!rep) throw new Error(`no destructive_attempt abort: verdict ${report.verdict}`);
    const hit = eventsOf(rep.artifacts.events).find((e) => e.type === 'gate_decision' && e.destructive === true);
    const job = (await inspectJobs(world, report.run.id)).find((j) => j.id === rep.run_id);
    abortMs.push(agentExitedAt(job) - hit.ts);
  }

  const rep = median(repetitionMs);
  const docker = median(dockerMs);
  const enqueue = median(enqueueToStartMs);
  const abort = median(abortMs);
  console.log(`runner costs, ${runs} runs (${repetitionMs.length} repetitions), image ${image}`);
  console.log(
    `  repetition, agent and verify \`true\`   median ${rep.toFixed(0).padStart(6)} ms   ${(rep / docker).toFixed(2)}x plain docker run (${docker.toFixed(0)} ms)`,
  );
  console.log(`  enqueue to first repetition started  median ${enqueue.toFixed(0).padStart(6)} ms   (worker already online)`);
  console.log(`  abort reaction, event to sandbox gone median ${abort.toFixed(0).padStart(6)} ms   target < 2000 ms: ${abort < 2000 ? 'met' : 'NOT met'}`);
  emitRow({
    row: 'repetition overhead (agent/verify `true`) vs docker run',
    measured: rep,
    baseline: docker,
    unit: 'ms',
    target: 'none set (includes 2 sandbox starts)',
    met: null,
  });
  emitRow({ row: 'enqueue-to-start latency, worker online', measured: enqueue, baseline: null, unit: 'ms', target: 'none set', met: null });
  emitRow({
    row: 'abort reaction (destructive event to sandbox stopped)',
    measured: abort,
    baseline: null,
    unit: 'ms',
    target: '< 2000 ms',
    met: abort < 2000,
  });
} finally {
  worker.kill('SIGINT');
  await new Promise((r) => (worker.exitCode !== null ? r() : worker.once('exit', r)));
  await world.close();
}
