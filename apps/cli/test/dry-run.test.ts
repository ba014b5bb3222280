// `chaos run --dry-run`: validation, the plan (with a placeholder, never a real canary), the
// carry-in and the image check — and nothing after: no queue, no Redis, no build, nothing written.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { describeError, IntuticError } from '@intutic/errors';
import { validateExperimentFile } from '@intutic/experiment';
import { CANARY_PATTERN } from '@intutic/faults';
import type { Engine } from '@intutic/sandbox';
import { CANARY_PLACEHOLDER, runChaosRun, type ChaosRunDeps, type ImageStatus } from '../src/commands/chaos-run.ts';
import { scratchDir } from '@intutic/testkit';

const root = realpathSync(scratchDir('intutic-dry-run-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const EXPERIMENT = `name: dry-run-test
description: the dry run
agent: "true"
verify: "true"
repeat: 3
faults:
  - id: egress.dns_fail
    match: { host: "*.example.invalid" }
    after_calls: 1
probes:
  - { id: task_success, weight: 1 }
abort:
  - cost_usd_above: 1
`;

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { cwd, encoding: 'utf8', stdio: 'pipe' });

function setup(name: string) {
  const base = join(root, name);
  const dir = join(base, 'project');
  const home = join(base, 'home');
  mkdirSync(dir, { recursive: true });
  mkdirSync(home, { recursive: true });
  writeFileSync(join(dir, 'README.md'), '# fixture\n');
  git(dir, 'init', '--quiet', '--initial-branch=main');
  git(dir, 'add', '-A');
  git(dir, 'commit', '--quiet', '-m', 'fixture');
  const file = join(base, 'exp.yaml');
  writeFileSync(file, EXPERIMENT);
  return { base, dir, home, file };
}

const refuse = (what: string) => async (): Promise<never> => {
  throw new Error(`the dry run must not ${what}`);
};

function deps(w: ReturnType<typeof setup>, image: ImageStatus) {
  let stdout = '';
  let stderr = '';
  const out = new PassThrough().on('data', (c: Buffer) => (stdout += c.toString()));
  const err = new PassThrough().on('data', (c: Buffer) => (stderr += c.toString()));
  const d: ChaosRunDeps = {
    ctx: {
      stdout: out,
      stderr: err,
      env: { PATH: process.env.PATH, HOME: w.home, INTUTIC_HOME: join(w.home, '.intutic') },
      cwd: w.dir,
      version: '0.1.0',
      isTTY: false,
      signal: new AbortController().signal,
    },
    validate: (f) => validateExperimentFile(f, { resolveVariable: () => undefined }),
    checkEngine: async () => ({}) as Engine,
    ensureImage: refuse('build or pull the image'),
    imageStatus: async () => image,
    connect: refuse('connect to Redis'),
    startWorker: refuse('start a worker'),
    ask: async () => 'cancel',
    interactive: false,
  };
  return { d, stdout: () => stdout, stderr: () => stderr };
}

describe('chaos run --dry-run', () => {
  it('prints the plan with a canary placeholder, the repetitions and the image check; exit 0; writes nothing', async () => {
    const w = setup('ok');
    const { d, stdout } = deps(w, 'present');
    const out = join(w.base, 'reports', 'r.json');
    const before = readdirSync(w.base).sort();
    const code = await runChaosRun({ file: w.file, out, keep: false, detach: false, dryRun: true, renderings: { junit: join(w.base, 'j.xml') } }, d);
    expect(code).toBe(0);
    const text = stdout();
    expect(text).toContain('dry run of dry-run-test');
    expect(text).toContain('3 baseline then 3 faulted repetitions');
    expect(text).toContain(`report would go to ${out}`);
    expect(text).toMatch(/image intutic\/sandbox:0\.1\.0 \(the default: the agent command starts none of Claude Code, Codex and Gemini CLI\): present/);
    expect(text).toContain(CANARY_PLACEHOLDER);
    expect(text).not.toMatch(CANARY_PATTERN);
    const plan = JSON.parse(text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1));
    expect(plan).toMatchObject({
      experiment: 'dry-run-test',
      canary: CANARY_PLACEHOLDER,
      faults: [{ id: 'egress.dns_fail', match: { host: '*.example.invalid' }, after_calls: 1 }],
    });
    expect(text).toContain('it would run');
    // Nothing written: no report, no renderings, no intutic home, the project untouched.
    expect(readdirSync(w.base).sort()).toEqual(before);
    expect(existsSync(join(w.home, '.intutic'))).toBe(false);
    expect(git(w.dir, 'status', '--porcelain', '--ignored')).toBe('');
  });

  it('says an intutic image would be built (exit 0) and a missing own image could not run (exit 3)', async () => {
    const w = setup('images');
    const build = deps(w, 'would-build');
    expect(await runChaosRun({ file: w.file, keep: false, detach: false, dryRun: true }, build.d)).toBe(0);
    expect(build.stdout()).toMatch(/not present: it would be built on first use/);
    const missing = deps(w, 'missing');
    expect(await runChaosRun({ file: w.file, keep: false, detach: false, dryRun: true, sandboxImage: 'my/agent:1' }, missing.d)).toBe(3);
    expect(missing.stdout()).toMatch(/it could not run: the image my\/agent:1 does not exist/);
  });

  it("defaults to the shipped agent's image, and says why; the file's image and --sandbox-image win over it", async () => {
    const w = setup('agent-images');
    const cases: [string, string, string][] = [
      ['claude -p "fix the test" --allowedTools Bash', 'intutic/agent-sandbox:0.1.0', 'the agent command starts Claude Code'],
      ['export CODEX_HOME="$HOME/.codex"\n  codex exec --skip-git-repo-check "fix it"', 'intutic/agent-sandbox:0.1.0-codex', 'starts Codex'],
      ['/usr/local/bin/gemini -m gemini-2.5-pro --yolo -p "ask claude or codex?"', 'intutic/agent-sandbox:0.1.0-gemini', 'starts Gemini CLI'],
      ['my-agent --model claude-sonnet', 'intutic/sandbox:0.1.0', 'the default'],
    ];
    for (const [agent, image, why] of cases) {
      writeFileSync(w.file, EXPERIMENT.replace('agent: "true"', `agent: |-\n  ${agent}`));
      const run = deps(w, 'would-build');
      expect(await runChaosRun({ file: w.file, keep: false, detach: false, dryRun: true }, run.d), agent).toBe(0);
      expect(run.stdout(), agent).toContain(`image ${image} (`);
      expect(run.stdout(), agent).toContain(why);
    }
    writeFileSync(w.file, EXPERIMENT.replace('agent: "true"', 'agent: claude -p hi').replace('abort:', 'sandbox_image: my/agent:2\nabort:'));
    const fromFile = deps(w, 'present');
    await runChaosRun({ file: w.file, keep: false, detach: false, dryRun: true }, fromFile.d);
    expect(fromFile.stdout()).toContain("image my/agent:2 (the experiment's sandbox_image): present");
    const fromFlag = deps(w, 'present');
    await runChaosRun({ file: w.file, keep: false, detach: false, dryRun: true, sandboxImage: 'my/agent:3' }, fromFlag.d);
    expect(fromFlag.stdout()).toContain('image my/agent:3 (--sandbox-image): present');
  });

  it('could not run (exit 3): an invalid experiment, a dirty tree', async () => {
    const w = setup('refusals');
    writeFileSync(w.file, EXPERIMENT.replace('repeat: 3', 'repeat: 0'));
    const invalid = deps(w, 'present');
    const error = await runChaosRun({ file: w.file, keep: false, detach: false, dryRun: true }, invalid.d).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IntuticError);
    expect(describeError(error).exitCode).toBe(3);
    expect(invalid.stderr()).toMatch(/repeat/);

    writeFileSync(w.file, EXPERIMENT);
    writeFileSync(join(w.dir, 'README.md'), '# changed\n');
    const dirty = await runChaosRun({ file: w.file, keep: false, detach: false, dryRun: true }, deps(w, 'present').d).catch((e: unknown) => e);
    expect(dirty).toBeInstanceOf(IntuticError);
    expect(describeError(dirty).exitCode).toBe(3);
    expect((dirty as Error).message).toMatch(/README\.md|dirty|uncommitted/i);
  });

  it('prints a placeholder by its name, never its value, whatever the variable is called', async () => {
    const w = setup('placeholder');
    const secret = 'sk-live-0123456789abcdef';
    writeFileSync(w.file, EXPERIMENT.replace('"*.example.invalid"', '"*.${BUILD_LABEL}"'));
    const run = deps(w, 'present');
    run.d.validate = (f) => validateExperimentFile(f, { resolveVariable: (name) => (name === 'BUILD_LABEL' ? secret : undefined) });
    expect(await runChaosRun({ file: w.file, keep: false, detach: false, dryRun: true }, run.d)).toBe(0);
    expect(run.stdout()).toContain('*.${BUILD_LABEL}');
    expect(run.stdout() + run.stderr()).not.toContain(secret);
  });

  it('refuses a FIFO unread with exit 66', async () => {
    const w = setup('fifo');
    const fifo = join(w.base, 'exp-fifo.yaml');
    execFileSync('mkfifo', [fifo]);
    const error = await runChaosRun({ file: fifo, keep: false, detach: false, dryRun: true }, deps(w, 'present').d).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IntuticError);
    expect(describeError(error).exitCode).toBe(66);
  });
});
