// holdSandbox against a real engine: a container started ahead of time runs its command only when
// released, on the workspace as it is then, with its timeout counted from then; one discarded, or
// stopped before its release, never runs it; one the engine lost meanwhile is replaced.
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerRequirement, requireOrSkip } from '@intutic/testkit';
import { holdSandbox, removeSandboxContainers, type SandboxRunOptions } from '../src/index.ts';
import { docker, sandboxFixture, tempWorkspace, type SandboxFixture } from './support.ts';

const ready = requireOrSkip('held sandboxes', dockerRequirement());
const testLabel = { 'dev.intutic.test': `hold-${process.pid}` };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.runIf(ready)('holdSandbox', () => {
  let fx: SandboxFixture;
  const workspaces: string[] = [];
  const held = (overrides: Partial<SandboxRunOptions> & { command: string }) => {
    const workspace = tempWorkspace();
    workspaces.push(workspace);
    let output = '';
    const sandbox = holdSandbox(fx.engine, {
      image: fx.image,
      workspace,
      envNames: ['GREETING'],
      env: { GREETING: 'hello' },
      labels: testLabel,
      onStdout: (c) => (output += c.toString()),
      onStderr: (c) => (output += c.toString()),
      ...overrides,
    });
    return { sandbox, workspace, output: () => output };
  };
  const containers = async () => (await docker(['ps', '-a', '-q', '--filter', `label=dev.intutic.test=${testLabel['dev.intutic.test']}`])).stdout.trim();

  beforeAll(async () => {
    fx = await sandboxFixture('base');
  }, 600_000);

  afterAll(async () => {
    await removeSandboxContainers(fx.engine, testLabel).catch(() => 0);
    for (const dir of workspaces) rmSync(dir, { recursive: true, force: true });
  });

  it('runs nothing until released, then the command on the workspace as it is then, with its env', async () => {
    const h = held({ command: 'touch /work/ran; cat /work/later.txt; echo " $GREETING"' });
    const sandbox = await h.sandbox;
    expect(await containers()).not.toBe('');
    await sleep(1_000);
    expect(existsSync(join(h.workspace, 'ran'))).toBe(false);
    // What the agent leaves behind while verify's container waits.
    writeFileSync(join(h.workspace, 'later.txt'), 'written after the start');
    const result = await sandbox.run();
    expect(result).toMatchObject({ exitCode: 0, timedOut: false, aborted: false });
    expect(h.output()).toBe('written after the start hello\n');
    expect(existsSync(join(h.workspace, 'ran'))).toBe(true);
    expect(await containers()).toBe('');
  });

  it('counts the timeout from the release, not from the start', async () => {
    const h = held({ command: 'sleep 0.5', timeoutMs: 1_500 });
    const sandbox = await h.sandbox;
    await sleep(2_000);
    expect(await sandbox.run()).toMatchObject({ exitCode: 0, timedOut: false });
  });

  it('a discarded one never runs its command and leaves no container', async () => {
    const h = held({ command: 'touch /work/ran' });
    await (await h.sandbox).discard();
    expect(await containers()).toBe('');
    expect(existsSync(join(h.workspace, 'ran'))).toBe(false);
  });

  it('one whose signal was aborted before its release does not run its command', async () => {
    const stop = new AbortController();
    const h = held({ command: 'touch /work/ran', signal: stop.signal });
    const sandbox = await h.sandbox;
    stop.abort();
    expect(await sandbox.run()).toMatchObject({ exitCode: 130, aborted: true });
    expect(existsSync(join(h.workspace, 'ran'))).toBe(false);
    expect(await containers()).toBe('');
  });

  it('one the engine lost while it waited is replaced by a fresh container when released', async () => {
    const h = held({ command: 'echo "fresh $GREETING"' });
    const sandbox = await h.sandbox;
    await docker(['rm', '-f', (await containers()).split('\n')[0]!]);
    await sleep(300);
    expect(await sandbox.run()).toMatchObject({ exitCode: 0 });
    expect(h.output()).toBe('fresh hello\n');
    expect(await containers()).toBe('');
  });
});
