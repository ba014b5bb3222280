// `intutic exec --sandbox` through the built CLI, as a user runs it: exit code passthrough, the current
// directory at /work, live output, env by name, no container left behind after Ctrl-C or SIGTERM.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN, dockerRequirement, REPO_ROOT, requireOrSkip, runBuiltCli, sandboxBuildEnv } from '@intutic/testkit';
import { docker, sandboxFixture, tempWorkspace } from './support.ts';

const ready = requireOrSkip('intutic exec --sandbox', dockerRequirement());

describe.runIf(ready)('intutic exec --sandbox', () => {
  const env = sandboxBuildEnv();
  const cwd = tempWorkspace('intutic-exec-test-');

  beforeAll(async () => {
    execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: REPO_ROOT, stdio: 'inherit' });
    await sandboxFixture('base'); // build the image once, outside the CLI's timeouts
  }, 600_000);

  afterAll(() => rmSync(cwd, { recursive: true, force: true }));

  it("exits with the command's exit code", async () => {
    const run = await runBuiltCli(['exec', '--sandbox', '--', 'sh', '-c', 'exit 7'], { cwd, env });
    expect(run.stderr).not.toContain('error');
    expect(run.code).toBe(7);
  });

  it('runs in the current directory mounted at /work, with stdout and stderr apart', async () => {
    writeFileSync(join(cwd, 'input.txt'), 'from the host\n');
    const run = await runBuiltCli(['exec', '--sandbox', '--', 'pwd; cat input.txt; echo to-stderr >&2; echo made > output.txt'], { cwd, env });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('/work\nfrom the host\n');
    expect(run.stderr).toContain('to-stderr');
    expect(readFileSync(join(cwd, 'output.txt'), 'utf8')).toBe('made\n');
  });

  it('quotes several arguments word by word', async () => {
    const run = await runBuiltCli(['exec', '--sandbox', '--', 'printf', '%s|', 'a b', "it's", '$HOME'], { cwd, env });
    expect(run.stdout).toBe("a b|it's|$HOME|");
  });

  it('passes only the variables named with --env', async () => {
    const run = await runBuiltCli(
      ['exec', '--sandbox', '--env', 'PASSED_VAR', '--env', 'NOT_SET_ANYWHERE', '--', 'echo "${PASSED_VAR:-none} ${OTHER_VAR:-none}"'],
      { cwd, env: { ...env, PASSED_VAR: 'passed', OTHER_VAR: 'other' } },
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('passed none\n');
    expect(run.stderr).toContain('NOT_SET_ANYWHERE is not set');
  });

  it('refuses to run without --sandbox', async () => {
    const run = await runBuiltCli(['exec', '--', 'true'], { cwd, env });
    expect(run.code).toBe(64);
    expect(run.stderr).toContain('only sandboxed execution is supported');
  });

  it("exits 3 with the engine check's message when no engine answers", async () => {
    const run = await runBuiltCli(['exec', '--sandbox', '--', 'true'], {
      cwd,
      env: { ...env, DOCKER_HOST: `unix://${cwd}/no-engine.sock`, XDG_RUNTIME_DIR: cwd },
    });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('E_SANDBOX_UNAVAILABLE');
    expect(run.stderr).toContain(`unix://${cwd}/no-engine.sock: no socket there`);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it.each(['SIGINT', 'SIGTERM'] as const)('leaves no container behind on %s', async (signal) => {
    const child = spawn(process.execPath, [CLI_BIN, 'exec', '--sandbox', '--', 'echo started; sleep 60'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const filter = `name=intutic-exec-${child.pid}-`;
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const deadline = Date.now() + 60_000;
    while (!stdout.includes('started') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect((await docker(['ps', '-q', '--filter', filter])).stdout.trim()).not.toBe('');
    const signalledAt = Date.now();
    child.kill(signal);
    expect(await exited).toBe(130);
    expect(Date.now() - signalledAt, 'budget: the sandbox is stopped and gone within 3 s of the signal').toBeLessThan(3_000);
    expect((await docker(['ps', '-a', '-q', '--filter', filter])).stdout.trim()).toBe('');
  });
});
