// One worker process for the suite-workers benchmark: the real run worker and processor (concurrency
// 1) on the given queue prefix, with a `sleep`-agent as each repetition (a real `sleep S` child
// process, its exit code and duration in the outcome) and a stand-in scoring that reports every
// repetition that ran. Says `worker ready NAME` once online; stops its `sleep` and itself on SIGTERM
// or when the benchmark that started it is gone.
//   node --import tsx scripts/bench/_suite-workers.ts PREFIX NAME SECONDS
import { spawn, type ChildProcess } from 'node:child_process';
import { createRunProcessor, createRunWorker, RunQueue, type QueueConfig, type RunHandlers } from '@intutic/queue';
import { fakeOutcome, REDIS_URL } from '@intutic/queue/testing';
import { fixtureReport } from '@intutic/report/testing';

const [prefix, name, seconds] = process.argv.slice(2);
if (!prefix || !name || !seconds) throw new Error('usage: _suite-workers.ts PREFIX NAME SECONDS');
const config: QueueConfig = { url: REDIS_URL, prefix };
const agents = new Set<ChildProcess>();

/** The agent: `sleep S` as a process of its own; resolves with its exit code. */
function sleepAgent(): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn('sleep', [seconds!], { stdio: 'ignore' });
    agents.add(child);
    child.once('error', reject);
    child.once('exit', (code) => {
      agents.delete(child);
      resolve(code);
    });
  });
}

const handlers: RunHandlers = {
  repetition: async (ctx) => {
    const started = new Date();
    const code = await sleepAgent();
    const finished = new Date();
    return fakeOutcome(ctx.data, {
      agent_exit_code: code,
      duration_s: (finished.getTime() - started.getTime()) / 1000,
      started_at: started.toISOString(),
      finished_at: finished.toISOString(),
    });
  },
  score: async (ctx) => {
    const ran = (kind: string) => ctx.repetitions.filter((r) => r.kind === kind && r.result?.status === 'ran').map(() => ({}));
    const report = fixtureReport({ name: ctx.payload.experiment.name, runId: ctx.payload.run_id, baseline: ran('baseline'), faulted: ran('faulted') });
    return { verdict: report.verdict, score: report.score, report_path: ctx.payload.report_path, report };
  },
};

const queue = new RunQueue(config);
const worker = createRunWorker(config, createRunProcessor(queue, handlers), { name, concurrency: 1 });
worker.on('error', (error) => process.stderr.write(`${name}: ${error.message}\n`));

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  for (const agent of agents) agent.kill('SIGKILL');
  setTimeout(() => process.exit(1), 3_000).unref();
  await worker.close(true).catch(() => undefined);
  await queue.close().catch(() => undefined);
  process.exit(0);
}
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
// A benchmark killed outright cannot stop its workers: each notices it is orphaned.
const parent = process.ppid;
setInterval(() => process.ppid !== parent && void stop(), 500).unref();

await worker.waitUntilReady();
process.stdout.write(`worker ready ${name}\n`);
