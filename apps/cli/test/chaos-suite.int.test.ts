// `chaos suite` through the real queue (real Redis, the real processor and scoring job, stand-in
// repetitions with no sandbox): an invalid suite is refused with every problem located and nothing
// enqueued; --detach leaves ONE flow of cells, each in its agent's image; followed, the matrix fills
// in, the suite report's files are written, the suite is recorded, and --compare latest compares.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT, describeError } from '@intutic/errors';
import { validateSuiteFile } from '@intutic/experiment';
import { listRuns } from '@intutic/history';
import { createRunProcessor, createRunWorker, RunQueue, runPayloadSchema, scoringJobId, suiteJobId, type QueueConfig } from '@intutic/queue';
import { deleteKeys, fakeOutcome, REDIS_URL, uniquePrefix } from '@intutic/queue/testing';
import { scoreRunJob, writeSuiteReport } from '@intutic/runner';
import type { Engine } from '@intutic/sandbox';
import { redisRequirement, requireOrSkip, scratchDir } from '@intutic/testkit';
import { runChaosSuite, type ChaosSuiteDeps } from '../src/commands/chaos-suite.ts';
import { chaosSuiteDeps } from '../src/commands/chaos-suite/deps.ts';
import { runCliInProcess } from './run-fixtures.ts';

const ok = requireOrSkip('chaos suite', await redisRequirement());
const root = realpathSync(scratchDir('intutic-suite-cli-'));
const prefix = uniquePrefix('suite-cli');
afterAll(async () => {
  if (ok) await deleteKeys(prefix);
  rmSync(root, { recursive: true, force: true });
});

const experiment = (name: string) => `name: ${name}
description: a suite row
task: Say hello.
verify: "true"
repeat: 2
faults:
  - id: egress.dns_fail
    match: { host: "*.example.invalid" }
probes:
  - { id: task_success, weight: 1 }
abort:
  - cost_usd_above: 1
  - wall_clock_s_above: 60
`;

const SUITE = `name: small
experiments:
  - "exp-*.yaml"
profiles:
  - claude-code
  - codex
repetitions: 1
cost_ceiling_usd: 5
`;

function project(name: string, suite = SUITE) {
  const base = join(root, name);
  const dir = join(base, 'project');
  const home = join(base, 'home');
  mkdirSync(dir, { recursive: true });
  mkdirSync(home, { recursive: true });
  writeFileSync(join(dir, 'README.md'), '# fixture\n');
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { cwd: dir, stdio: 'pipe' });
  git('init', '--quiet', '--initial-branch=main');
  git('add', '-A');
  git('commit', '--quiet', '-m', 'fixture');
  writeFileSync(join(base, 'exp-a.yaml'), experiment('exp-a'));
  writeFileSync(join(base, 'exp-b.yaml'), experiment('exp-b'));
  writeFileSync(join(base, 'suite.yaml'), suite);
  return { base, dir, home, intuticHome: join(home, '.intutic'), file: join(base, 'suite.yaml') };
}

function collect() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (c: Buffer) => (text += c.toString()));
  return { stream, text: () => text };
}

const config: QueueConfig = { url: REDIS_URL, prefix };

/** The real deps but the engine, images and worker: repetitions are stand-ins, scoring and the suite job real. */
function deps(w: ReturnType<typeof project>) {
  const stdout = collect();
  const stderr = collect();
  const ctx = {
    stdout: stdout.stream,
    stderr: stderr.stream,
    env: { PATH: process.env.PATH, HOME: w.home, INTUTIC_HOME: w.intuticHome },
    cwd: w.dir,
    version: '0.1.0',
    isTTY: false,
    signal: new AbortController().signal,
  };
  const images: string[] = [];
  const real = chaosSuiteDeps(ctx, false);
  const d: ChaosSuiteDeps = {
    ...real,
    checkEngine: async () => ({}) as Engine,
    ensureImage: async (_engine, image) => void images.push(image),
    connect: async () => ({ queue: new RunQueue(config), config }),
    startWorker: async () => {
      const queue = new RunQueue(config);
      const worker = createRunWorker(
        config,
        createRunProcessor(queue, {
          repetition: async (job) => fakeOutcome(job.data, { artifacts: { ...fakeOutcome(job.data).artifacts, events: join(root, 'no-events.jsonl') } }),
          score: (job) => scoreRunJob(job, { version: '0.1.0', home: w.intuticHome }),
          suiteReport: (report) => writeSuiteReport(report, { home: w.intuticHome }),
        }),
      );
      await worker.waitUntilReady();
      return { worker, queue, close: async () => (await worker.close(), await queue.close()) };
    },
  };
  return { d, images, stdout: () => stdout.text(), stderr: () => stderr.text() };
}

describe('an invalid suite', () => {
  it('is refused with every problem as file:line and nothing enqueued (exit 3); chaos validate says the same', async () => {
    const w = project(
      'invalid',
      `name: small
experiments:
  - exp-a.yaml
  - "nothing-*.yaml"
  - old.yaml
profiles:
  - claude-code
  - cursor
cost_ceiling_usd: 5
`,
    );
    writeFileSync(join(w.base, 'old.yaml'), experiment('old').replace('task: Say hello.', 'agent: claude -p "Say hello."'));
    const run = deps(w);
    const error = await runChaosSuite(
      { file: w.file, keep: false, detach: true, parallel: false },
      { ...run.d, connect: () => Promise.reject(new Error('must not connect')) },
    ).catch((e: unknown) => e);
    expect(describeError(error).exitCode).toBe(EXIT.couldNotRun);
    expect(describeError(error).text).toContain('is not a valid suite (3 error(s) above); nothing was enqueued');
    const lines = run.stderr().trim().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(/suite\.yaml:8:5: error: unknown profile "cursor"/),
      expect.stringMatching(/suite\.yaml:4:5: error: "nothing-\*\.yaml" matches no experiment file/),
      expect.stringMatching(/suite\.yaml:5:5: error: .*old\.yaml gives no task:/),
    ]);
    const cli = await runCliInProcess(['chaos', 'validate', w.file], { PATH: process.env.PATH, HOME: w.home }, w.dir);
    expect(cli.code).toBe(EXIT.couldNotRun);
    expect(cli.stdout).toContain('suite.yaml:8:5: error: unknown profile "cursor"');
    expect(cli.stdout).toContain(`${w.file}: invalid: 3 errors`);
  });

  it('chaos validate takes the shipped examples/suite.yaml as a suite', async () => {
    const cli = await runCliInProcess(
      ['chaos', 'validate', 'examples/suite.yaml'],
      { PATH: process.env.PATH, NPM_REGISTRY_DOMAIN: 'registry.example.test' },
      process.cwd(),
    );
    expect(cli.stdout).toBe('examples/suite.yaml: valid\n');
    expect(cli.code).toBe(EXIT.ok);
    const suite = await validateSuiteFile('examples/suite.yaml', { resolveVariable: () => 'registry.example.test' });
    expect(suite.suite?.cells.map((c) => `${c.experiment}×${c.profile}`)).toHaveLength(9);
  });
});

describe.skipIf(!ok)('chaos suite on a real Redis', () => {
  it('--detach enqueues ONE flow whose children are the cells, each its agent in its image', async () => {
    const w = project('detach');
    const run = deps(w);
    const code = await runChaosSuite(
      { file: w.file, keep: false, detach: true, parallel: false },
      { ...run.d, startWorker: () => Promise.reject(new Error('detached: no worker')) },
    );
    expect(code, run.stderr()).toBe(EXIT.ok);
    const suiteId = /^suite (\S+) \(small\): 2 experiment\(s\) × 2 profile\(s\) = 4 cells$/m.exec(run.stderr())?.[1];
    expect(suiteId, run.stderr()).toBeDefined();
    expect(run.images.sort()).toEqual(['intutic/agent-sandbox:0.1.0', 'intutic/agent-sandbox:0.1.0-codex']);
    const queue = new RunQueue(config);
    try {
      const suiteJob = await queue.getJob(suiteJobId(suiteId!));
      expect(suiteJob?.name).toBe('suite');
      const children = await suiteJob!.getDependenciesCount();
      expect(children.unprocessed).toBe(4);
      const cells = (suiteJob!.data as { cells: { experiment: string; profile: string; run_id: string }[] }).cells;
      expect(cells.map((c) => `${c.experiment}×${c.profile}`)).toEqual(['exp-a×claude-code', 'exp-a×codex', 'exp-b×claude-code', 'exp-b×codex']);
      for (const cell of cells) {
        const payload = runPayloadSchema.parse((await queue.getJob(scoringJobId(cell.run_id)))!.data);
        expect(payload.suite?.id).toBe(suiteId);
        expect(payload.experiment.agent).toMatch(cell.profile === 'codex' ? /\ncodex exec .* 'Say hello\.'$/ : /^claude -p 'Say hello\.' /);
        expect(payload.sandbox_image).toBe(cell.profile === 'codex' ? 'intutic/agent-sandbox:0.1.0-codex' : 'intutic/agent-sandbox:0.1.0');
        expect(run.stderr()).toContain(`intutic chaos status ${cell.run_id} --follow`);
      }
      expect(run.stderr()).toContain('no worker is online');
      // Leave nothing for another test's worker to pick up.
      await queue.queue.obliterate({ force: true });
    } finally {
      await queue.close();
    }
  });

  it('followed: each cell as it ends, the matrix, the report files, the history; --compare latest', async () => {
    const w = project('follow');
    const first = deps(w);
    const code = await runChaosSuite({ file: w.file, keep: false, detach: false, parallel: false, out: '../out' }, first.d);
    // The stand-in repetitions inject nothing, so every cell is scored invalid (exit 2): a finished suite all the same.
    expect(code, first.stderr()).toBe(EXIT.invalid);
    const ended = first.stderr().match(/^\[\d\/4\] exp-[ab] × (claude-code|codex): invalid/gm);
    expect(ended, first.stderr()).toHaveLength(4);
    expect(first.stdout()).toMatch(/\| *exp-a/);
    for (const ext of ['json', 'md', 'html', 'xml']) expect(existsSync(join(w.base, 'out', `suite-report.${ext}`)), ext).toBe(true);
    expect(first.stderr()).toContain(`suite report: ${join(w.base, 'out', 'suite-report.json')}`);
    expect(readFileSync(join(w.base, 'out', 'suite-report.xml'), 'utf8')).toMatch(/^<\?xml/);
    const recorded = (await listRuns({ home: w.intuticHome })).filter((r) => r.suite);
    expect(recorded.map((r) => r.suite!.profile).sort()).toEqual(['claude-code', 'claude-code', 'codex', 'codex']);

    const second = deps(w);
    expect(await runChaosSuite({ file: w.file, keep: false, detach: false, parallel: false, out: '../out2', compare: 'latest' }, second.d)).toBe(EXIT.invalid);
    expect(second.stdout()).toContain(`earlier: suite ${recorded[0]!.suite!.id} (small), 4 cells, from the history`);
  }, 120_000);

  it('chaos status <suite> lists its cells; --follow shows each cell as it ends, then the matrix, and exits with the suite code; inspect takes the suite', async () => {
    const w = project('status');
    const run = deps(w);
    const detached = await runChaosSuite(
      { file: w.file, keep: false, detach: true, parallel: false, out: '../out-status' },
      { ...run.d, startWorker: () => Promise.reject(new Error('detached: no worker')) },
    );
    expect(detached, run.stderr()).toBe(EXIT.ok);
    const suiteId = /^suite (\S+) \(small\)/m.exec(run.stderr())![1]!;
    const env = { PATH: process.env.PATH, HOME: w.home, INTUTIC_HOME: w.intuticHome, REDIS_URL, INTUTIC_QUEUE_PREFIX: prefix };
    const listed = await runCliInProcess(['chaos', 'status', suiteId], env, w.dir);
    expect(listed.code, listed.stderr).toBe(EXIT.ok);
    expect(listed.stdout).toContain(`suite ${suiteId} (small): 2 experiment(s) × 2 profile(s) = 4 cells`);
    expect(listed.stdout).toMatch(new RegExp(`^exp-a\\s+codex\\s+${suiteId}-\\d+\\s+0/2 done$`, 'm'));
    // A worker comes online after the follower joined: the follower sees every cell end, then the matrix.
    const worker = await run.d.startWorker({} as Engine, config, () => undefined);
    try {
      const followed = await runCliInProcess(['chaos', 'status', suiteId, '--follow'], env, w.dir);
      // The stand-in repetitions inject nothing, so every cell is invalid: the suite's own exit code.
      expect(followed.code, followed.stderr).toBe(EXIT.invalid);
      expect(followed.stderr.match(/^\[\d\/4\] exp-[ab] × (claude-code|codex): invalid/gm)).toHaveLength(4);
      expect(followed.stdout).toMatch(/\| *experiment *\| *claude-code *\| *codex *\|/);
      // inspect takes the suite id too: its report, then every cell's jobs as a run's inspection shows them.
      const inspected = await runCliInProcess(['chaos', 'inspect', suiteId], env, w.dir);
      expect(inspected.code, inspected.stderr).toBe(EXIT.ok);
      expect(inspected.stdout).toContain(`suite ${suiteId}: small (`);
      expect(inspected.stdout.match(/^== exp-[ab] × (claude-code|codex)$/gm)).toHaveLength(4);
      expect(inspected.stdout.match(/^run \S+: exp-[ab] \(.*\), finished$/gm)).toHaveLength(4);
    } finally {
      await worker.close();
    }
  }, 120_000);

  it('--compare with a suite the history does not have is refused before anything is enqueued', async () => {
    const w = project('compare-missing');
    const run = deps(w);
    const error = await runChaosSuite(
      { file: w.file, keep: false, detach: true, parallel: false, compare: 'nope' },
      { ...run.d, connect: () => Promise.reject(new Error('must not connect')) },
    ).catch((e: unknown) => e);
    expect(describeError(error).text).toContain('--compare nope: no such suite in the history; nothing was enqueued');
    expect(describeError(error).exitCode).toBe(EXIT.couldNotRun);
  });
});
