// holdSandbox against a real engine: a container started ahead of time runs its command only when
// released, on the workspace as it is then, with its timeout counted from then; one discarded, or
// stopped before its release, never runs it; one the engine lost meanwhile is replaced.
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dockerRequirement, requireOrSkip } from '@intutic/testkit';
import { holdSandbox, type SandboxRunOptions } from '../src/index.ts';
import { docker, labelledSuite } from './support.ts';

const ready = requireOrSkip('held sandboxes', dockerRequirement());
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.runIf(ready)('holdSandbox', () => {
  const suite = labelledSuite('hold');
  const { containers } = suite;
  const held = (overrides: Partial<SandboxRunOptions> & { command: string }) => {
    const workspace = suite.workspace();
    let output = '';
    const sandbox = holdSandbox(suite.fx().engine, {
      image: suite.fx().image,
      workspace,
      envNames: ['GREETING'],
      env: { GREETING: 'hello' },
      labels: suite.label,
      onStdout: (c) => (output += c.toString()),
      onStderr: (c) => (output += c.toString()),
      ...overrides,
    });
    return { sandbox, workspace, output: () => output };
  };

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

  it('leaves /work alone while it waits (the agent is using it): no lending, no sealing until released', async () => {
    const workspace = suite.workspace();
    mkdirSync(join(workspace, '.gates'));
    writeFileSync(join(workspace, '.gates', 'gate.sh'), 'exit 0\n');
    writeFileSync(join(workspace, 'mine.txt'), "the agent's, being written");
    const before = (path: string) => {
      const { uid, gid, mode } = statSync(join(workspace, path));
      return { uid, gid, mode };
    };
    const as = { work: before('.'), mine: before('mine.txt') };
    const h = held({ command: 'stat -c %a /work', workspace, protection: { readOnly: ['.gates'] } });
    const sandbox = await h.sandbox;
    // Its own setup is under way: the sandbox mark is made just before it waits for its env block.
    const [id] = (await containers()).split('\n');
    for (let tries = 0; (await docker(['exec', id!, 'test', '-e', '/run/intutic/sandbox'])).code !== 0; tries++) {
      expect(tries, 'the held container never made its sandbox mark').toBeLessThan(100);
      await sleep(50);
    }
    await sleep(300);
    expect({ work: before('.'), mine: before('mine.txt') }).toEqual(as);
    // Released, it seals /work (governance is mounted) and lends it, and gives it all back after.
    expect(await sandbox.run()).toMatchObject({ exitCode: 0 });
    expect(h.output()).toBe('777\n');
    expect({ work: before('.'), mine: before('mine.txt') }).toEqual(as);
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
