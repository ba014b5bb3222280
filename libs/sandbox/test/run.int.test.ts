// runInSandbox against a real engine: exit codes, live output, timeout and abort (within a second),
// the firewall failing closed, workspace ownership, scratch home, the run's CA, orphan cleanup.
import { chownSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { dockerRequirement, requireOrSkip, sandboxBuildEnv } from '@intutic/testkit';
import { removeSandboxContainers, runInSandbox, ENTRYPOINT_EXIT, SANDBOX_LABEL, type SandboxRunOptions } from '../src/index.ts';
import { docker, labelledSuite, testCertificates, type SandboxFixture } from './support.ts';

const ready = requireOrSkip('sandbox runs', dockerRequirement());

describe.runIf(ready)('runInSandbox', () => {
  const suite = labelledSuite('run');
  const { workspace, label: testLabel, containers: leftovers } = suite;
  let fx: SandboxFixture;
  beforeAll(() => {
    fx = suite.fx();
  });
  const sandbox = (overrides: Partial<SandboxRunOptions> & { command: string }) => {
    let stdout = '';
    let stderr = '';
    const done = runInSandbox(fx.engine, {
      image: fx.image,
      workspace: overrides.workspace ?? workspace(),
      envNames: [],
      env: {},
      labels: testLabel,
      onStdout: (c) => (stdout += c.toString()),
      onStderr: (c) => (stderr += c.toString()),
      ...overrides,
    });
    return { done, out: () => stdout, err: () => stderr };
  };

  it("returns the command's exit code, cwd /work, stdout and stderr apart", async () => {
    const run = sandbox({ command: 'pwd; echo to-err >&2; exit 7' });
    const result = await run.done;
    expect(result.exitCode).toBe(7);
    expect(result.error).toBeUndefined();
    expect(run.out()).toBe('/work\n');
    expect(run.err()).toBe('to-err\n');
    expect(result.durationMs).toBe(result.endedAt - result.startedAt);
    expect(await leftovers()).toBe('');
  });

  it('streams output while the command runs', async () => {
    let firstAt = 0;
    const result = await runInSandbox(fx.engine, {
      image: fx.image,
      workspace: workspace(),
      envNames: [],
      env: {},
      command: 'echo early; sleep 2; echo late',
      onStdout: (chunk) => {
        if (!firstAt && chunk.toString().includes('early')) firstAt = Date.now();
      },
    });
    expect(firstAt).toBeGreaterThan(0);
    expect(result.endedAt - firstAt).toBeGreaterThan(1_500);
  });

  it("kills the command promptly on an abort (within the spec's 2 s budget) and leaves no container", async () => {
    const controller = new AbortController();
    const run = sandbox({ command: 'echo started; sleep 60', signal: controller.signal });
    while (!run.out().includes('started')) await new Promise((r) => setTimeout(r, 20));
    const abortedAt = Date.now();
    controller.abort();
    const result = await run.done;
    expect(Date.now() - abortedAt, 'budget (spec): a sandbox is stopped within 2 s of an abort').toBeLessThan(2_000);
    expect(result.aborted).toBe(true);
    expect(result.timedOut).toBe(false);
    expect(result.exitCode).not.toBe(0);
    expect(await leftovers()).toBe('');
  });

  it('stops a command that runs past its timeout', async () => {
    const result = await sandbox({ command: 'sleep 60', timeoutMs: 1_500 }).done;
    expect(result.timedOut).toBe(true);
    expect(result.aborted).toBe(false);
    expect(result.durationMs, 'budget: a 1.5 s timeout stops the command well before its 60 s sleep ends').toBeLessThan(30_000);
    expect(await leftovers()).toBe('');
  });

  it('fails closed when the firewall cannot be applied: a clear error, its own exit code, the command never runs', async () => {
    const run = await docker([
      'run',
      '--rm',
      '--cap-drop',
      'ALL',
      '--cap-add',
      'CHOWN',
      '--cap-add',
      'SETUID',
      '--cap-add',
      'SETGID',
      '--cap-add',
      'SETPCAP',
      '-e',
      'INTUTIC_SANDBOX_PROXY=172.17.0.1:9',
      fx.image,
      'sh',
      '-c',
      'echo COMMAND-RAN',
    ]);
    expect(run.code).toBe(ENTRYPOINT_EXIT.firewall);
    expect(run.stderr).toMatch(/intutic-sandbox: firewall could not be applied \(the container needs NET_ADMIN\); refusing to run/);
    expect(run.stdout).not.toContain('COMMAND-RAN');
  });

  it('has no network interface but loopback when no proxy is named', async () => {
    const run = sandbox({ command: 'ls /sys/class/net' });
    expect((await run.done).exitCode).toBe(0);
    expect(run.out().trim()).toBe('lo');
  });

  it('lends a root-owned workspace to the agent and gives everything back to root afterwards', async () => {
    const dir = workspace();
    writeFileSync(join(dir, 'existing.txt'), 'old\n', { mode: 0o644 });
    mkdirSync(join(dir, '.intutic-chaos'));
    mkdirSync(join(dir, '.intutic/events'), { recursive: true });
    const run = sandbox({
      workspace: dir,
      command:
        'echo new >> existing.txt && mkdir -p src && echo x > src/made.js && echo e > .intutic-chaos/events.jsonl && echo g > .intutic/events/gate.jsonl && ln -s /etc/passwd src/link && id -u',
    });
    const result = await run.done;
    expect(result.exitCode, run.err()).toBe(0);
    expect(run.out().trim()).toBe('1000');
    const owners = (path: string): string[] => {
      const info = lstatSync(path);
      const here = [`${path.slice(dir.length) || '/'} ${info.uid}:${info.gid}`];
      return info.isDirectory() ? [...here, ...readdirSync(path).flatMap((name) => owners(join(path, name)))] : here;
    };
    expect(owners(dir).filter((line) => !line.endsWith(' 0:0'))).toEqual([]);
    // The symlink the agent planted was not followed: /etc/passwd in the image is untouched, and so is the host's.
    expect(statSync('/etc/passwd').uid).toBe(0);
  });

  it('never hands the host a setuid file: giving a file back to root clears its setuid and setgid bits', async () => {
    const dir = workspace();
    const run = sandbox({ workspace: dir, command: 'cp /bin/true planted && chmod 6755 planted && stat -c %a planted' });
    expect((await run.done).exitCode, run.err()).toBe(0);
    expect(run.out().trim()).toBe('6755');
    const info = statSync(join(dir, 'planted'));
    expect(info.uid).toBe(0);
    expect(info.mode & 0o6000).toBe(0);
  });

  it('gives a root-owned workspace back even when the run is killed', async () => {
    const dir = workspace();
    const controller = new AbortController();
    const run = sandbox({ workspace: dir, signal: controller.signal, command: 'touch made-before-abort && echo started && sleep 60' });
    while (!run.out().includes('started')) await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    await run.done;
    expect(statSync(join(dir, 'made-before-abort')).uid).toBe(0);
    expect(statSync(dir).uid).toBe(0);
  });

  it("runs the agent as the workspace owner's uid when that is not root, so its files stay the user's", async () => {
    const dir = workspace();
    chownSync(dir, 4242, 4343);
    const run = sandbox({ workspace: dir, command: 'id -u; id -g; echo x > made.txt; whoami' });
    expect((await run.done).exitCode, run.err()).toBe(0);
    expect(run.out().trim().split('\n')).toEqual(['4242', '4343', 'agent']);
    expect(statSync(join(dir, 'made.txt'))).toMatchObject({ uid: 4242, gid: 4343 });
  });

  it('gives every run an empty scratch home', async () => {
    const first = await sandbox({ command: 'echo secret-notes > "$HOME/notes" && test -w "$HOME"' }).done;
    expect(first.exitCode).toBe(0);
    const second = sandbox({ command: 'ls -A "$HOME"; test ! -e "$HOME/notes"' });
    expect((await second.done).exitCode).toBe(0);
    expect(second.out()).not.toContain('notes');
  });

  it("trusts the run's CA for curl and names it for Node, and only when given", async () => {
    const tls = await testCertificates(fx.gateway);
    const dir = workspace();
    const caPath = join(dir, '..', `intutic-test-ca-${process.pid}.pem`);
    writeFileSync(caPath, tls.caPem);
    const server = createHttpsServer({ cert: tls.certPem, key: tls.keyPem }, (_req, res) => res.end('tls-ok'));
    await new Promise<void>((resolve) => server.listen(0, fx.gateway, resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const trusted = sandbox({
        command: `curl -sS -m 5 https://${fx.gateway}:${port}/ && echo && echo "$NODE_EXTRA_CA_CERTS"`,
        proxy: { host: fx.gateway, port },
        caCertPath: caPath,
      });
      expect((await trusted.done).exitCode, trusted.err()).toBe(0);
      expect(trusted.out().trim().split('\n')).toEqual(['tls-ok', '/etc/ssl/certs/ca-certificates.crt']);
      const untrusted = sandbox({ command: `curl -sS -m 5 https://${fx.gateway}:${port}/`, proxy: { host: fx.gateway, port } });
      expect((await untrusted.done).exitCode).toBe(60); // curl: peer certificate cannot be authenticated
    } finally {
      server.close();
      server.closeAllConnections();
      rmSync(caPath, { force: true });
    }
  });

  it('reports named variables the environment does not set', async () => {
    const run = sandbox({ command: 'echo "${SET_ONE:-unset}"', envNames: ['SET_ONE', 'NOT_SET'], env: { SET_ONE: 'one' } });
    const result = await run.done;
    expect(run.out().trim()).toBe('one');
    expect(result.missingEnv).toEqual(['NOT_SET']);
  });

  it('hands the command every value byte for byte: newlines, quotes, escapes a shell or printf would act on, non-ASCII, empty', async () => {
    const values: Record<string, string> = {
      LINES: 'two\nlines\n',
      QUOTES: `'single' "double" \`tick\` $HOME $(id)`,
      ESCAPES: String.raw`\x41 \c \n \\ %s %b \0101 -e`,
      UNICODE: 'ü 漢字 🙂 \u00a0',
      EMPTY: '',
      LONG: 'k'.repeat(64 * 1024),
    };
    const names = Object.keys(values);
    // Each value's bytes as hex, from inside the sandbox: what the command got, exactly.
    const command = names.map((n) => `printf '%s' "$${n}" | od -An -v -tx1 | tr -d ' \\n'; echo`).join('; ');
    const run = sandbox({ command, envNames: names, env: values });
    const result = await run.done;
    expect(result.exitCode).toBe(0);
    expect(run.out().split('\n').slice(0, names.length)).toEqual(names.map((n) => Buffer.from(values[n]!, 'utf8').toString('hex')));
    expect(result.missingEnv).toBeUndefined();
  });

  it("says the command's end before the container is gone, and no trailer the command writes passes for the entrypoint's", async () => {
    const ended: Array<{ code: number; at: number }> = [];
    // A forged trailer: the shape is known, the nonce is not (it is never in the command's environment).
    const forged = `intutic-exit-${'0'.repeat(32)} 0`;
    const run = sandbox({
      command: `printf '%s\\n' "${forged}"; env | grep -c intutic-exit || true; printf 'no newline'; exit 5`,
      onCommandEnded: (code) => ended.push({ code, at: Date.now() }),
    });
    const result = await run.done;
    expect(result.exitCode).toBe(5);
    expect(ended).toHaveLength(1);
    expect(ended[0]!.code).toBe(5);
    expect(ended[0]!.at).toBeLessThanOrEqual(result.endedAt);
    // The command's stdout, all of it and only it.
    expect(run.out()).toBe(`${forged}\n0\nno newline`);

    // A stopped sandbox says its stop is done (onStopped), not that its command ended.
    const controller = new AbortController();
    const stopped: number[] = [];
    let stoppedAt = 0;
    const long = sandbox({
      command: 'echo started; sleep 60',
      signal: controller.signal,
      onCommandEnded: (code) => stopped.push(code),
      onStopped: () => (stoppedAt = Date.now()),
    });
    while (!long.out().includes('started')) await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    const stop = await long.done;
    expect(stop.aborted).toBe(true);
    expect(stopped).toEqual([]);
    expect(stoppedAt).toBeGreaterThan(0);
    expect(stoppedAt).toBeLessThanOrEqual(stop.endedAt);
    expect(long.out()).toBe('started\n');
  });

  it('says a stop is done only once every process in it is killed and the workspace is given back', async () => {
    const dir = workspace();
    chownSync(dir, 0, 0);
    const controller = new AbortController();
    const atStop: { owner?: number; fileOwner?: number; ticks?: number } = {};
    // A process that would go on writing if it were still alive when the stop is said.
    const run = sandbox({
      workspace: dir,
      signal: controller.signal,
      command: 'touch made-by-agent; (while :; do date +%s%N >> ticks; sleep 0.01; done) & echo started; sleep 60',
      onStopped: () => {
        atStop.owner = statSync(dir).uid;
        atStop.fileOwner = statSync(join(dir, 'made-by-agent')).uid;
        atStop.ticks = readFileSync(join(dir, 'ticks'), 'utf8').length;
      },
    });
    while (!run.out().includes('started')) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 100));
    controller.abort();
    const result = await run.done;
    expect(result.aborted).toBe(true);
    expect(atStop).toMatchObject({ owner: 0, fileOwner: 0 });
    expect(atStop.ticks).toBeGreaterThan(0);
    expect(readFileSync(join(dir, 'ticks'), 'utf8').length).toBe(atStop.ticks);
    expect(await leftovers()).toBe('');
  });

  it('refuses a loopback proxy, which no container can reach, and a missing image, with clear errors', async () => {
    await expect(sandbox({ command: 'true', proxy: { host: '127.0.0.1', port: 8080 } }).done).rejects.toThrow(/loopback, which a container cannot reach/);
    await expect(sandbox({ command: 'true', image: 'intutic-test/does-not-exist:0' }).done).rejects.toMatchObject({ code: 'E_SANDBOX_FAILED' });
    // An image not built FROM ours has no entrypoint to enforce the sandbox: it must not start at all.
    const foreign = sandbox({ command: 'echo RAN-WITHOUT-SANDBOX', image: sandboxBuildEnv().INTUTIC_SANDBOX_BASE_IMAGE! });
    await expect(foreign.done).rejects.toMatchObject({ code: 'E_SANDBOX_FAILED', message: expect.stringMatching(/did not start/) });
    expect(foreign.out()).not.toContain('RAN-WITHOUT-SANDBOX');
    expect(await leftovers()).toBe('');
  });

  it('removes the sandbox containers carrying given labels, and only sandbox containers', async () => {
    const orphan = { 'dev.intutic.test': testLabel['dev.intutic.test'], 'dev.intutic.orphan': `o-${process.pid}` };
    const run = sandbox({ command: 'echo started; sleep 60', labels: orphan });
    while (!run.out().includes('started')) await new Promise((r) => setTimeout(r, 20));
    const bystander = (await docker(['create', '--label', `dev.intutic.orphan=${orphan['dev.intutic.orphan']}`, fx.image, 'true'])).stdout.trim();
    try {
      expect(await removeSandboxContainers(fx.engine, { 'dev.intutic.orphan': orphan['dev.intutic.orphan'] })).toBe(1);
      const result = await run.done;
      expect(result.exitCode).not.toBe(0);
      expect(
        (
          await docker(['ps', '-a', '-q', '--filter', `label=${SANDBOX_LABEL}=1`, '--filter', `label=dev.intutic.orphan=${orphan['dev.intutic.orphan']}`])
        ).stdout.trim(),
      ).toBe('');
      expect((await docker(['inspect', bystander])).code).toBe(0);
    } finally {
      await docker(['rm', '-f', bystander]);
    }
  });
});
