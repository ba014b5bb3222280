// `chaos run` through the real queue flow (real Redis, real processor, the real scoring job) with a
// stand-in repetition (no sandbox): the finished run lands in the history, and --junit /
// --summary-md / --html are written once the report is.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { validateExperimentFile } from '@intutic/experiment';
import { listRuns } from '@intutic/history';
import { createRunProcessor, createRunWorker, RunQueue, type QueueConfig } from '@intutic/queue';
import type { Engine } from '@intutic/sandbox';
import { redisRequirement, requireOrSkip, scratchDir } from '@intutic/testkit';
import { runChaosRun, type ChaosRunDeps } from '../src/commands/chaos-run.ts';
import { deleteKeys, fakeOutcome, REDIS_URL, testPayload, uniquePrefix } from '@intutic/queue/testing';
import { scoreRunJob } from '@intutic/runner';

const ok = requireOrSkip('history wiring', await redisRequirement());
const root = realpathSync(scratchDir('intutic-wiring-'));
const prefix = uniquePrefix('wiring');
afterAll(async () => {
  if (ok) await deleteKeys(prefix);
  rmSync(root, { recursive: true, force: true });
});

const EXPERIMENT = `name: wiring-test
description: the history and renderings wiring
agent: "true"
verify: "true"
repeat: 2
faults:
  - id: egress.dns_fail
    match: { host: "*.example.invalid" }
probes:
  - { id: task_success, weight: 1 }
abort:
  - cost_usd_above: 1
`;

function project(): { dir: string; home: string; file: string } {
  const dir = join(root, 'project');
  const home = join(root, 'home');
  mkdirSync(dir, { recursive: true });
  mkdirSync(home, { recursive: true });
  writeFileSync(join(dir, 'README.md'), '# fixture\n');
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { cwd: dir, stdio: 'pipe' });
  git('init', '--quiet', '--initial-branch=main');
  git('add', '-A');
  git('commit', '--quiet', '-m', 'fixture');
  const file = join(root, 'wiring.yaml');
  writeFileSync(file, EXPERIMENT);
  return { dir, home, file };
}

function collect() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (c: Buffer) => (text += c.toString()));
  return { stream, text: () => text };
}

describe.skipIf(!ok)('chaos run records the run and writes the renderings', () => {
  it('the history gets the run; the JUnit, Markdown and HTML files appear next to the report', async () => {
    const { dir, home, file } = project();
    const intuticHome = join(home, '.intutic');
    const env = { PATH: process.env.PATH, HOME: home, INTUTIC_HOME: intuticHome };
    const config: QueueConfig = { url: REDIS_URL, prefix };
    const stdout = collect();
    const stderr = collect();
    const deps: ChaosRunDeps = {
      ctx: { stdout: stdout.stream, stderr: stderr.stream, env, cwd: dir, version: '0.1.0', isTTY: false, signal: new AbortController().signal },
      validate: (f) => validateExperimentFile(f, { resolveVariable: () => undefined }),
      checkEngine: async () => ({}) as Engine,
      ensureImage: async () => undefined,
      imageStatus: async () => 'present',
      connect: async () => ({ queue: new RunQueue(config), config }),
      startWorker: async () => {
        const queue = new RunQueue(config);
        const worker = createRunWorker(
          config,
          createRunProcessor(queue, {
            repetition: async (ctx) => fakeOutcome(ctx.data, { artifacts: { ...fakeOutcome(ctx.data).artifacts, events: join(root, 'no-events.jsonl') } }),
            // The home the worker resolves from INTUTIC_HOME, as `chaos worker` does.
            score: (ctx) => scoreRunJob(ctx, { version: '0.1.0', home: intuticHome }),
          }),
        );
        await worker.waitUntilReady();
        return {
          worker,
          queue,
          close: async () => {
            await worker.close();
            await queue.close();
          },
        };
      },
      ask: async () => 'cancel',
      interactive: false,
    };
    const out = join(root, 'out', 'chaos.json');
    const renderings = { junit: '../out/chaos.xml', summaryMd: join(root, 'out', 'chaos.md'), html: join(root, 'out', 'chaos.html') };
    const code = await runChaosRun({ file, out, keep: false, detach: false, renderings }, deps);
    // The stand-in repetitions inject nothing, so the run is scored invalid (exit 2): a finished run all the same.
    expect(code, stderr.text() + stdout.text()).toBe(2);

    const runs = await listRuns({ home: intuticHome });
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ experiment: 'wiring-test', verdict: 'invalid', report_path: out });
    console.log(`history line: ${readFileSync(join(intuticHome, 'history.jsonl'), 'utf8').trim()}`);

    // Relative paths are taken from the working directory, as the user typed them.
    const junit = readFileSync(join(root, 'out', 'chaos.xml'), 'utf8');
    expect(junit).toMatch(/^<\?xml/);
    expect(junit).toContain('<testsuite');
    expect(junit).toContain('task_success');
    expect(readFileSync(renderings.summaryMd, 'utf8')).toContain('wiring-test');
    expect(readFileSync(renderings.html, 'utf8')).toMatch(/<html/i);
    expect(stderr.text()).toContain(`junit: ${join(root, 'out', 'chaos.xml')}`);
    expect(existsSync(out)).toBe(true);
  }, 60_000);

  it('a history that cannot be written is logged, and the run is still scored', async () => {
    const blocked = join(root, 'not-a-dir');
    writeFileSync(blocked, 'a file where the home directory should be');
    const logs: string[] = [];
    const payload = { ...testPayload(1), report_path: join(root, 'blocked', 'r.json') };
    const result = await scoreRunJob(
      { job: {} as never, payload, repetitions: [], stop: null, log: async (l) => void logs.push(l) },
      { version: '0.1.0', home: join(blocked, 'home') },
    );
    expect(result.report_path).toBe(payload.report_path);
    expect(existsSync(payload.report_path)).toBe(true);
    expect(logs.join('\n')).toMatch(/warning: the run could not be recorded in the history/);
  });
});
