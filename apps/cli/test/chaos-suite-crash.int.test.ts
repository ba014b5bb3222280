// A suite that loses a worker (issue 37): one cell's repetition runs in a worker process that is
// killed with SIGKILL mid-job; an in-process worker runs the other cells (stand-in repetitions, the
// real scoring and suite jobs) and fails the dead worker's job as stalled. The suite still ends, every
// other cell scored, the lost cell an error that names the dead worker, and `chaos inspect` shows it.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT } from '@intutic/errors';
import {
  createRunProcessor,
  createRunWorker,
  repetitionJobId,
  RunQueue,
  scoringJobId,
  suiteJobId,
  type JobView,
  type RunPayload,
  type SuitePayload,
} from '@intutic/queue';
import { deleteKeys, fakeOutcome, REDIS_URL, testPayload, uniquePrefix } from '@intutic/queue/testing';
import { suiteReportSchema } from '@intutic/report';
import { scoreRunJob } from '@intutic/runner';
import { redisRequirement, requireOrSkip, scratchDir } from '@intutic/testkit';
import { runInspect } from '../src/commands/chaos-inspect.ts';
import { redisRunReader } from '../src/shared/run-views.ts';
import { capture, runCliInProcess } from './run-fixtures.ts';

const ok = requireOrSkip('a suite that loses a worker', await redisRequirement());
const root = scratchDir('intutic-suite-crash-');
const config = { url: REDIS_URL, prefix: uniquePrefix('suite-crash') };
/** What `chaos inspect` reads the queue from. */
const env = { PATH: process.env.PATH, REDIS_URL: config.url, INTUTIC_QUEUE_PREFIX: config.prefix };
const HANGING_WORKER = fileURLToPath(new URL('../../../libs/queue/test/fixtures/hanging-worker.ts', import.meta.url));
const PROFILES = ['claude-code', 'codex', 'gemini-cli'];

const open: { close(): Promise<void> }[] = [];
/** The hanging worker, killed here if a test ends before it does. */
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  for (const o of open.reverse()) await o.close();
  if (ok) await deleteKeys(config.prefix);
});

/** One experiment × three profiles, one repetition each, every cell's report under the scratch directory. */
function suiteOf(id: string): { suite: SuitePayload; cells: RunPayload[] } {
  const cells = PROFILES.map((profile) => ({ ...testPayload(1, `${id}-${profile}`), report_path: join(root, id, profile, 'report.json') }));
  const plan: SuitePayload['cells'] = cells.map((cell, i) => ({ experiment: cell.experiment.name, profile: PROFILES[i]!, run_id: cell.run_id }));
  for (const cell of cells) cell.suite = { id, cost_ceiling_usd: null, run_ids: plan.map((c) => c.run_id) };
  const suite: SuitePayload = {
    suite_id: id,
    name: 'crash',
    file: 'suite.yaml',
    created_at: new Date().toISOString(),
    repetitions: 1,
    cost_ceiling_usd: null,
    profiles: PROFILES.map((p) => ({ id: p, agent: p, model: null, image: `intutic/agent-sandbox:test-${p}` })),
    experiments: [{ name: cells[0]!.experiment.name, file: 'queue-test.yaml', fault: 'egress.dns_fail' }],
    cells: plan,
    report_path: join(root, id, 'suite-report.json'),
    generator_version: '0.1.0',
  };
  return { suite, cells };
}

/** A worker in its own process that takes one repetition and hangs; resolves with that job's id. */
async function startHangingWorker(recordKey: string): Promise<{ child: ChildProcess; jobId: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', HANGING_WORKER, config.prefix, recordKey], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, REDIS_URL: config.url },
  });
  children.push(child);
  const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
  const jobId = /^processing (\S+)$/m.exec(chunk.toString())?.[1];
  expect(jobId, chunk.toString()).toBeDefined();
  return { child, jobId: jobId! };
}

/** The in-process worker: stand-in repetitions (no sandbox), the real scoring job and suite job. */
async function startWorker(queue: RunQueue): Promise<void> {
  const events = join(root, 'no-events.jsonl');
  const worker = createRunWorker(
    config,
    createRunProcessor(queue, {
      repetition: async (ctx) => fakeOutcome(ctx.data, { artifacts: { ...fakeOutcome(ctx.data).artifacts, events } }),
      score: (ctx) => scoreRunJob(ctx, { version: '0.1.0', home: join(root, 'home') }),
    }),
  );
  open.push({ close: () => worker.close() });
  await worker.waitUntilReady();
}

describe.skipIf(!ok)('a suite whose worker is killed mid-cell', () => {
  it('ends with every other cell scored, the lost cell an error naming its dead worker, and inspect shows the stalled job', async () => {
    const queue = new RunQueue(config);
    open.push(queue);
    const { suite, cells } = suiteOf(`suite-crash-${Date.now().toString(36)}`);
    await queue.enqueueSuite(suite, cells);

    // The only worker online takes one cell's first repetition; killed, it leaves that job active.
    const recordKey = `${config.prefix}:record`;
    const hanging = await startHangingWorker(recordKey);
    const lost = suite.cells.find((c) => repetitionJobId(c.run_id, 'baseline', 1) === hanging.jobId);
    expect(lost, `${hanging.jobId} is no cell's first repetition`).toBeDefined();
    hanging.child.kill('SIGKILL');
    await once(hanging.child, 'exit');

    await startWorker(queue);
    const suiteJob = suiteJobId(suite.suite_id);
    await expect.poll(async () => (await queue.getJob(suiteJob))?.getState(), { timeout: 60_000, interval: 250 }).toBe('completed');
    const report = suiteReportSchema.parse((await queue.getJob(suiteJob))!.returnvalue);

    expect(report.cells.map((c) => [c.profile, c.run_id])).toEqual(suite.cells.map((c) => [c.profile, c.run_id]));
    for (const cell of report.cells.filter((c) => c.run_id !== lost!.run_id)) {
      expect(cell, cell.profile).toMatchObject({ status: 'done', reason: null, report: { run: { id: cell.run_id } } });
      expect(cell.report!.repetitions.map((r) => [r.kind, r.status])).toEqual([
        ['baseline', 'ran'],
        ['faulted', 'ran'],
      ]);
    }
    const lostCell = report.cells.find((c) => c.run_id === lost!.run_id)!;
    expect(lostCell.status).toBe('error');
    expect(lostCell.reason).toContain(hanging.jobId);
    expect(lostCell.reason).toContain('its worker stopped in the middle of it');
    expect(lostCell.report?.repetitions.map((r) => [r.kind, r.status])).toEqual([['baseline', 'failed']]);
    expect(lostCell.report?.skipped).toMatchObject([{ kind: 'faulted', index: 1 }]);
    // The lost repetition was never run again.
    expect(await queue.redis.lrange(recordKey, 0, -1)).toHaveLength(1);

    const cli = await runCliInProcess(['chaos', 'inspect', lost!.run_id, '--json'], env, root);
    expect(cli.code, cli.stderr).toBe(EXIT.ok);
    const view = JSON.parse(cli.stdout) as { state: string; jobs: JobView[] };
    expect(view.state).toBe('finished');
    expect(view.jobs.map((j) => [j.id, j.state, j.stalled])).toEqual([
      [hanging.jobId, 'failed', true],
      [repetitionJobId(lost!.run_id, 'faulted', 1), 'completed', false],
      [scoringJobId(lost!.run_id), 'completed', false],
    ]);
    expect(view.jobs[0]!.failed_reason).toContain('its worker stopped in the middle of it');
    expect(view.jobs[1]!.result).toMatchObject({ status: 'skipped', stop: { kind: 'error', job_id: hanging.jobId } });

    // The text a user reads: the job failed, and its worker died.
    const out = capture();
    const machine = { exists: () => false, leftovers: async () => [] };
    expect(await runInspect({ run: lost!.run_id, json: false }, { stdout: out.stream, runs: redisRunReader(env), machine })).toBe(EXIT.ok);
    expect(out.text()).toContain(`${hanging.jobId} — failed`);
    expect(out.text()).toMatch(/ran \d+\.\d s .*, then its worker died/);
    expect(out.text()).toContain('failed: its worker stopped in the middle of it');
  }, 90_000);
});
