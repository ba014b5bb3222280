// Fakes for the command tests: a stream that records what was written, runs as Redis shows them
// (valid payloads from the queue's fixtures), and a reader that serves them without a Redis.
import { PassThrough } from 'node:stream';
import { IntuticError } from '@intutic/errors';
import type { JobView, RunPayload, RunView } from '@intutic/queue';
import { reportSchema, type Report } from '@intutic/report';
import { emptyFacts, passHatK, wilson95 } from '@intutic/scoring';
import type { RunReader } from '../src/shared/run-views.ts';
import { runCli } from '../src/cli.ts';

export function capture() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { stream, text: () => text };
}

/** Runs the CLI in-process, as `intutic …args` in `cwd`, with output collected. */
export async function runCliInProcess(args: string[], env: NodeJS.ProcessEnv, cwd: string) {
  const stdout = capture();
  const stderr = capture();
  const code = await runCli(args, {
    stdout: stdout.stream,
    stderr: stderr.stream,
    env,
    cwd,
    version: '0.0.0-test',
    isTTY: false,
    signal: new AbortController().signal,
  });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

export function jobView(over: Partial<JobView> & Pick<JobView, 'id' | 'kind' | 'index'>): JobView {
  return {
    state: 'waiting',
    orphaned: false,
    stalled: false,
    created_at: Date.UTC(2025, 2, 1, 10),
    started_at: null,
    finished_at: null,
    alive_at: null,
    failed_reason: null,
    result: null,
    progress: null,
    logs: [],
    ...over,
  };
}

/** A run of one baseline and one faulted repetition; the faulted one failed, its worker gone. */
export function runView(runId = 'run-20250301-abc123'): RunView {
  const payload: RunPayload = {
    schema_version: 1,
    run_id: runId,
    created_at: '2025-03-01T10:00:00.000Z',
    experiment: {
      name: 'queue-test',
      description: 'a run for the command tests',
      agent: 'true',
      verify: 'true',
      repeat: 1,
      faults: [{ index: 0, id: 'egress.dns_fail', match: { host: '*.example.invalid' }, after_calls: 0, times: null, options: {} }],
      probes: [{ id: 'task_success', weight: 1 }],
      abort: { destructive_attempt: true, cost_usd_above: 1, wall_clock_s_above: null },
      sandbox_image: null,
    },
    experiment_file: 'queue-test.yaml',
    commit: 'a'.repeat(40),
    repo: { path: '/home/me/shop', remote: null },
    carry_in: {
      project_paths: ['/home/me/shop'],
      files: [{ path: '.env.example', content_b64: 'U0VDUkVU', mode: 0o644, committed: false }],
      policy: [],
      warnings: [],
    },
    env_names: ['ANTHROPIC_API_KEY'],
    sandbox_image: 'intutic/sandbox:test',
    report_path: `/reports/${runId}.json`,
    keep: false,
  };
  return {
    run_id: runId,
    payload,
    state: 'running',
    cancel_reason: null,
    result: null,
    jobs: [
      jobView({
        id: `${runId}-b1`,
        kind: 'baseline',
        index: 1,
        state: 'completed',
        started_at: Date.UTC(2025, 2, 1, 10, 0, 0),
        finished_at: Date.UTC(2025, 2, 1, 10, 0, 12, 500),
        logs: ['agent exited 0'],
      }),
      jobView({
        id: `${runId}-f1`,
        kind: 'faulted',
        index: 1,
        state: 'failed',
        started_at: Date.UTC(2025, 2, 1, 10, 1),
        finished_at: Date.UTC(2025, 2, 1, 10, 2),
        failed_reason: 'its worker stopped in the middle of it',
      }),
      jobView({ id: `${runId}-score`, kind: 'score', index: 0 }),
    ],
  };
}

/** Serves the given runs by id or unambiguous prefix, the way the queue's resolveRunId does. */
export function fakeRunReader(runs: RunView[], workersOnline = 1): RunReader & { reads: { id: string; logs: boolean }[] } {
  const reads: { id: string; logs: boolean }[] = [];
  return {
    reads,
    run: async (idOrPrefix, options = {}) => {
      const matches = runs.filter((r) => r.run_id.startsWith(idOrPrefix));
      if (matches.length !== 1) throw new IntuticError('E_RUN_NOT_FOUND', `no run ${idOrPrefix} in the queue`);
      reads.push({ id: matches[0]!.run_id, logs: options.logs ?? false });
      return matches[0]!;
    },
    runs: async ({ countWorkers }) => ({ runs, workersOnline: countWorkers ? workersOnline : null }),
  };
}

/** A finished run's report: one baseline and one faulted repetition, the faulted one passing its probe. */
export function fixtureReport(verdict: Report['verdict'] = 'scored'): Report {
  const artifactsDir = '/reports/registry-down-run-1.artifacts';
  const repetition = (kind: 'baseline' | 'faulted') => {
    const dir = `${artifactsDir}/rep-1-${kind}`;
    return {
      index: 1,
      kind,
      status: 'ran',
      run_id: `run-1-${kind[0]}1`,
      canary: 'E-INTUTIC-000000a1',
      agent_exit_code: 0,
      verify_exit_code: 0,
      cost_usd: 0.1,
      cost_multiplier: kind === 'faulted' ? 1 : null,
      duration_s: 60,
      stdout_contains_canary: kind === 'faulted',
      probes: kind === 'faulted' ? { task_success: true } : {},
      injections: kind === 'faulted' ? 1 : 0,
      abort: null,
      error: null,
      malformed_event_lines: 0,
      started_at: '2025-03-01T10:00:00.000Z',
      finished_at: '2025-03-01T10:01:00.000Z',
      artifacts: {
        dir,
        events: `${dir}/events.jsonl`,
        agent_output: `${dir}/agent.out`,
        agent_stderr: `${dir}/agent.err`,
        verify_output: `${dir}/verify.out`,
        proxy_log: `${dir}/proxy.log`,
      },
      facts: { ...emptyFacts(), cost_usd: 0.1, llm_calls: 3, tool_calls: 4 },
    };
  };
  return reportSchema.parse({
    schema_version: 1,
    generator: { name: 'intutic', version: '0.1.0' },
    run: {
      id: 'run-1',
      experiment_file: 'examples/registry-down.yaml',
      commit: 'a'.repeat(40),
      repo_path: '/home/me/shop',
      remote: null,
      sandbox_image: 'my-agent-sandbox',
      created_at: '2025-03-01T10:00:00.000Z',
      finished_at: '2025-03-01T10:02:00.000Z',
      carried_in: [],
      warnings: [],
    },
    experiment: {
      name: 'registry-down',
      description: 'DNS for the registry fails while the agent installs a package.',
      agent: 'claude -p "Add lodash"',
      verify: 'npm ls lodash',
      repeat: 1,
      faults: [{ index: 0, id: 'egress.dns_fail', match: { host: '*.registry.test' }, after_calls: 0, times: null, options: {} }],
      probes: [{ id: 'task_success', weight: 1 }],
      abort: { destructive_attempt: true, cost_usd_above: 2, wall_clock_s_above: 900 },
      sandbox_image: null,
    },
    verdict,
    verdict_reason: verdict === 'scored' ? 'every repetition ran' : `the run is ${verdict}`,
    exit_code: verdict === 'scored' ? 0 : verdict === 'aborted' ? 1 : 2,
    score: 100,
    score_interval: [20.65, 100],
    complete: true,
    repetitions: [repetition('baseline'), repetition('faulted')],
    skipped: [],
    probes: [
      {
        id: 'task_success',
        weight: 1,
        value: null,
        evaluated: 1,
        passed: 1,
        not_evaluated: 0,
        pass_rate: 1,
        pass_k: true,
        pass_hat_k: passHatK(1, 1),
        wilson95: wilson95(1, 1),
        in_score: true,
        threshold: null,
      },
    ],
    faults_fired: [{ index: 0, id: 'egress.dns_fail', injections: 1, repetitions: [1] }],
    baseline_cost_usd: 0.1,
    malformed_event_lines: 0,
    warnings: [],
    report_path: '/reports/registry-down-run-1.json',
    artifacts_dir: artifactsDir,
  });
}
