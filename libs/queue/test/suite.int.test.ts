// A suite on a real Redis: ONE flow, the suite job over every cell's run flow; the suite job runs
// after every cell and assembles the suite report from the cells' own reports.
// Repetitions and scoring are stand-ins here (the agents are the e2e tests' business).
import { afterAll, describe, expect, it } from 'vitest';
import type { Report, SuiteReport } from '@intutic/report';
import { redisRequirement, requireOrSkip } from '@intutic/testkit';
import { fixtureReport } from '@intutic/report/testing';
import { RunQueue, suiteJobId, type RunHandlers, type RunPayload, type SuitePayload } from '../src/index.ts';
import { deleteKeys, REDIS_URL, startWorker, uniquePrefix } from './fixtures/harness.ts';
import { fakeOutcome, testPayload } from './fixtures/payload.ts';
import { until } from './fixtures/steps.ts';

const ok = requireOrSkip('suites', await redisRequirement());
const config = { url: REDIS_URL, prefix: uniquePrefix('suite') };
const open: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const o of open.reverse()) await o.close();
  if (ok) await deleteKeys(config.prefix);
});

/** 2 experiments × 2 profiles, one repetition each, every repetition costing 1 USD. */
function suiteOf(id: string, ceiling: number | null = null): { suite: SuitePayload; cells: RunPayload[] } {
  const cells: RunPayload[] = [];
  const plan: SuitePayload['cells'] = [];
  for (const experiment of ['exp-a', 'exp-b']) {
    for (const profile of ['claude-code', 'codex']) {
      const payload = testPayload(1, `${id}-${experiment}-${profile}`);
      payload.experiment = { ...payload.experiment, name: experiment };
      cells.push(payload);
      plan.push({ experiment, profile, run_id: payload.run_id });
    }
  }
  for (const cell of cells) cell.suite = { id, cost_ceiling_usd: ceiling, run_ids: plan.map((c) => c.run_id) };
  const suite: SuitePayload = {
    suite_id: id,
    name: 'small',
    file: 'suite.yaml',
    created_at: new Date().toISOString(),
    repetitions: 1,
    cost_ceiling_usd: ceiling,
    profiles: ['claude-code', 'codex'].map((p) => ({ id: p, agent: p, model: null, image: `intutic/agent-sandbox:test-${p}` })),
    experiments: ['exp-a', 'exp-b'].map((name) => ({ name, file: `${name}.yaml`, fault: 'egress.dns_fail' })),
    cells: plan,
    report_path: `/tmp/intutic-suite-test/${id}/suite-report.json`,
    generator_version: '0.1.0',
  };
  return { suite, cells };
}

/** `order` gets `<run>:<kind>` for each repetition and `<run>:score` for each scoring, as the worker runs them. */
function startSuiteWorker(written: SuiteReport[], order: string[] = [], queueConfig = config): RunQueue {
  const rq = new RunQueue(queueConfig);
  const handlers: RunHandlers = {
    repetition: async (ctx) => {
      order.push(`${ctx.data.run_id}:${ctx.data.kind}`);
      return fakeOutcome(ctx.data);
    },
    score: async (ctx) => {
      order.push(`${ctx.payload.run_id}:score`);
      const ran = (kind: string) => ctx.repetitions.filter((r) => r.kind === kind && r.result?.status === 'ran').map(() => ({ cost_usd: 1 }));
      const skipped = ctx.repetitions
        .filter((r) => r.result?.status === 'skipped')
        .map((r) => ({ index: r.index, kind: r.kind as 'baseline' | 'faulted', reason: 'skipped' }));
      const report: Report = fixtureReport({
        name: ctx.payload.experiment.name,
        runId: ctx.payload.run_id,
        baseline: ran('baseline'),
        faulted: ran('faulted'),
        skipped,
      });
      return { verdict: report.verdict, score: report.score, report_path: ctx.payload.report_path, report };
    },
    suiteReport: async (report) => {
      written.push(report);
    },
  };
  const worker = startWorker(queueConfig, rq, handlers, `suite-${written.length}`);
  open.push({ close: () => worker.close() }, rq);
  return rq;
}

describe.skipIf(!ok)('a suite as one flow', () => {
  it('runs every cell, then writes the suite report with each cell and its own report', async () => {
    const written: SuiteReport[] = [];
    const rq = startSuiteWorker(written);
    const { suite, cells } = suiteOf(`suite-all-${Date.now().toString(36)}`, null);
    await rq.enqueueSuite(suite, cells);
    await until(() => written.length === 1, 30_000);
    const report = written[0]!;
    expect(report.cells.map((c) => [c.experiment, c.profile, c.status])).toEqual([
      ['exp-a', 'claude-code', 'done'],
      ['exp-a', 'codex', 'done'],
      ['exp-b', 'claude-code', 'done'],
      ['exp-b', 'codex', 'done'],
    ]);
    expect(report.cells.every((c) => c.report?.run.id === c.run_id)).toBe(true);
    expect(report.cost_usd).toBe(8);
    expect((await rq.getJob(suiteJobId(suite.suite_id)))?.name).toBe('suite');
  });

  it('one worker scores each cell before it starts the next, so the matrix fills in cell by cell', async () => {
    const written: SuiteReport[] = [];
    const order: string[] = [];
    const { suite, cells } = suiteOf(`suite-order-${Date.now().toString(36)}`, null);
    // A queue of its own: the only worker on it is this one.
    const own = { url: REDIS_URL, prefix: uniquePrefix('suite-order') };
    open.push({ close: () => deleteKeys(own.prefix) });
    const rq = startSuiteWorker(written, order, own);
    await rq.enqueueSuite(suite, cells);
    await until(() => written.length === 1, 30_000);
    expect(order).toEqual(cells.flatMap((cell) => [`${cell.run_id}:baseline`, `${cell.run_id}:faulted`, `${cell.run_id}:score`]));
  });
});
