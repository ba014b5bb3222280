// The sandbox through Podman's Docker-compatible API (scripts/setup/podman.sh starts it as root on a
// socket of its own, beside dockerd): found as Podman when DOCKER_HOST names it, the base image built
// there, a command run with its env block, output and exit code, the workspace given back, egress only
// to the proxy on Podman's bridge gateway, and nothing left in Podman after an abort or a timeout.
import { lstatSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PODMAN_SOCKET, podmanRequirement, requireOrSkip, sandboxBuildEnv } from '@intutic/testkit';
import {
  checkEngine,
  CONTEXT_HASH_LABEL,
  ENTRYPOINT_PATH,
  ensureSandboxImage,
  hostGatewayAddress,
  parseStepLine,
  removeSandboxContainers,
  runInSandbox,
  sandboxImageTag,
  type Engine,
  type SandboxRunOptions,
} from '../src/index.ts';
import { CLI_VERSION, tcpServer, tempWorkspace } from './support.ts';

const ready = requireOrSkip('sandbox on podman', await podmanRequirement());
const PODMAN_HOST = `unix://${PODMAN_SOCKET}`;
const testLabel = { 'dev.intutic.test': `podman-${process.pid}` };
/** Built by the image test on top of the cached layers of the CLI version's image, removed after. */
const testVersion = `0.0.0-podman${process.pid}`;

describe.runIf(ready)('the sandbox through Podman', () => {
  let engine: Engine;
  let image: string;
  let gateway: string;
  const workspaces: string[] = [];
  const workspace = (): string => {
    const dir = tempWorkspace();
    workspaces.push(dir);
    return dir;
  };
  const sandbox = (overrides: Partial<SandboxRunOptions> & { command: string }) => {
    let stdout = '';
    let stderr = '';
    const done = runInSandbox(engine, {
      image,
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
  /** Wait until the run has printed `text`, or has ended without it (then the expect says so at once). */
  const printed = async (run: ReturnType<typeof sandbox>, text: string) => {
    let ended = false;
    run.done.then(
      () => (ended = true),
      () => (ended = true),
    );
    while (!run.out().includes(text) && !ended) await new Promise((r) => setTimeout(r, 20));
    expect(run.out(), run.err()).toContain(text);
  };
  /** This file's containers in Podman, running or not. */
  const leftovers = async () =>
    (await engine.docker.listContainers({ all: true, filters: { label: [`dev.intutic.test=${testLabel['dev.intutic.test']}`] } })).map((c) => c.Id);

  beforeAll(async () => {
    // DOCKER_HOST for the engine check alone: this process's own engine stays Docker.
    engine = await checkEngine({ env: { ...process.env, DOCKER_HOST: PODMAN_HOST } });
    const started = Date.now();
    image = await ensureSandboxImage(engine, {
      version: CLI_VERSION,
      variant: 'base',
      env: sandboxBuildEnv(),
      onProgress: (line) => process.stderr.write(`[podman image] ${line}\n`),
    });
    process.stderr.write(`[podman image] ${image} ready in ${Math.round((Date.now() - started) / 1000)} s\n`);
    gateway = await hostGatewayAddress(engine);
  }, 900_000);

  afterAll(async () => {
    if (engine) await removeSandboxContainers(engine, testLabel).catch(() => 0);
    if (engine)
      await engine.docker
        .getImage(sandboxImageTag(testVersion, 'base'))
        .remove()
        .catch(() => undefined);
    for (const dir of workspaces) rmSync(dir, { recursive: true, force: true });
  });

  it('finds Podman through DOCKER_HOST and proves it starts a container; its bridge gateway is the host', async () => {
    expect(engine).toMatchObject({ kind: 'podman', endpoint: PODMAN_HOST });
    // Podman lists tags with their registry (docker.io/…): the probe still finds one of ours or the base.
    expect(engine.probeImage).toMatch(/(intutic\/sandbox|local\/debian):/);
    // Podman's default network `podman`, not Docker's docker0.
    expect(gateway).toBe('10.88.0.1');
  });

  it('builds a sandbox image through Podman, its steps shown as progress (the cached layers make it quick)', async () => {
    const progress: string[] = [];
    const tag = await ensureSandboxImage(engine, { version: testVersion, variant: 'base', env: sandboxBuildEnv(), onProgress: (l) => progress.push(l) });
    const steps = progress.map(parseStepLine).filter((step) => step !== undefined);
    expect(steps.length, progress.join('\n')).toBeGreaterThan(5);
    expect(steps.at(-1)).toMatchObject({ n: steps.at(-1)!.m });
    const info = await engine.docker.getImage(tag).inspect();
    expect(info.Config.Labels?.[CONTEXT_HASH_LABEL]).toMatch(/^[0-9a-f]{32}$/);
    expect(info.Config.Entrypoint).toEqual([ENTRYPOINT_PATH]);
  });

  it('runs a command: exit code, stdout and stderr apart, cwd /work, the env block, the unprivileged user', async () => {
    const run = sandbox({ command: 'pwd; id -u; echo "$SECRET_ONE"; echo to-err >&2; exit 7', envNames: ['SECRET_ONE'], env: { SECRET_ONE: 'one two' } });
    const result = await run.done;
    expect(result.exitCode, run.err()).toBe(7);
    expect(result.error).toBeUndefined();
    expect(run.out()).toBe('/work\n1000\none two\n');
    expect(run.err()).toBe('to-err\n');
    expect(await leftovers()).toEqual([]);
  });

  it('lends a root-owned workspace to the agent and gives everything back to root afterwards', async () => {
    const dir = workspace();
    writeFileSync(join(dir, 'existing.txt'), 'old\n');
    const run = sandbox({ workspace: dir, command: 'echo new >> existing.txt && mkdir -p src && echo x > src/made.js && stat -c %u src/made.js' });
    expect((await run.done).exitCode, run.err()).toBe(0);
    expect(run.out().trim()).toBe('1000');
    const owners = (path: string): string[] => {
      const info = lstatSync(path);
      const here = [`${path.slice(dir.length) || '/'} ${info.uid}:${info.gid}`];
      return info.isDirectory() ? [...here, ...readdirSync(path).flatMap((name) => owners(join(path, name)))] : here;
    };
    expect(owners(dir)).toEqual(['/ 0:0', '/existing.txt 0:0', '/src 0:0', '/src/made.js 0:0']);
  });

  it('reaches the proxy on the gateway and nothing else: another port there, or the host at another address, fails', async () => {
    const proxy = await tcpServer(gateway);
    // Listening on every address of this machine: reachable from the sandbox but for its firewall.
    const other = await tcpServer('0.0.0.0');
    const elsewhere = Object.values(networkInterfaces())
      .flat()
      .find((a) => a?.family === 'IPv4' && !a.internal && a.address !== gateway)!.address;
    try {
      const tcp = (host: string, port: number) => `timeout 5 bash -c 'exec 3<>/dev/tcp/${host}/${port}' 2>/dev/null && echo open || echo blocked`;
      const run = sandbox({
        command: `${tcp(gateway, proxy.port)}; ${tcp(gateway, other.port)}; ${tcp(elsewhere, other.port)}`,
        proxy: { host: gateway, port: proxy.port },
      });
      expect((await run.done).exitCode, run.err()).toBe(0);
      expect(run.out().trim().split('\n')).toEqual(['open', 'blocked', 'blocked']);
      expect(proxy.connections()).toBe(1);
      expect(other.connections()).toBe(0);
    } finally {
      await proxy.close();
      await other.close();
    }
  });

  it('stops a command on an abort within 2 s and on a timeout, and leaves no container in Podman', async () => {
    const controller = new AbortController();
    const run = sandbox({ command: 'echo started; sleep 60', signal: controller.signal });
    await printed(run, 'started');
    const abortedAt = Date.now();
    controller.abort();
    const aborted = await run.done;
    expect(Date.now() - abortedAt, 'budget (spec): a sandbox is stopped within 2 s of an abort').toBeLessThan(2_000);
    expect(aborted).toMatchObject({ aborted: true, timedOut: false });
    expect(await leftovers()).toEqual([]);

    const timedOut = await sandbox({ command: 'sleep 60', timeoutMs: 1_500 }).done;
    expect(timedOut).toMatchObject({ aborted: false, timedOut: true });
    expect(timedOut.durationMs).toBeLessThan(30_000);
    expect(await leftovers()).toEqual([]);
  });
});
