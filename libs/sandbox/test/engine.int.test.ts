// The engine health check against real and fake endpoints: it accepts an engine only once it has
// started a container, and its failure names every endpoint tried and how to fix it.
import { createServer } from 'node:http';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dockerRequirement, requireOrSkip, scratchDir } from '@intutic/testkit';
import { checkEngine, hostGatewayAddress, PROBE_PID_LABEL, SANDBOX_LABEL } from '../src/index.ts';
import { docker } from './support.ts';

const ready = requireOrSkip('sandbox engine check', dockerRequirement());
const scratch = scratchDir('intutic-engine-test-');

/** An endpoint that answers ping and version like an engine but cannot create containers. */
async function pingOnlyEngine(socketPath: string): Promise<() => void> {
  const server = createServer((req, res) => {
    const url = req.url ?? '';
    if (url.endsWith('/_ping')) return res.end('OK');
    res.setHeader('content-type', 'application/json');
    if (url.includes('/version')) return res.end(JSON.stringify({ Version: '99.0', ApiVersion: '1.41', Components: [{ Name: 'Engine' }] }));
    if (url.includes('/images/json')) return res.end(JSON.stringify([{ Id: 'sha256:x', RepoTags: ['debian:bookworm'] }]));
    res.statusCode = 500;
    res.end(JSON.stringify({ message: 'cannot create containers here' }));
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return () => server.close();
}

describe.runIf(ready)('checkEngine', () => {
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('finds the running Docker engine by starting a container, and leaves none behind', async () => {
    const engine = await checkEngine();
    expect(engine.kind).toBe('docker');
    expect(engine.endpoint).toBe(process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock');
    expect(engine.probeImage).toBeTruthy();
    // This process's probes only: other test files start probes of their own at the same time.
    expect(
      (await docker(['ps', '-a', '-q', '--filter', `label=${SANDBOX_LABEL}=probe`, '--filter', `label=${PROBE_PID_LABEL}=${process.pid}`])).stdout.trim(),
    ).toBe('');
  });

  it('names every endpoint it tried and how to fix it when none works', async () => {
    const env = { DOCKER_HOST: `unix://${scratch}/missing.sock`, XDG_RUNTIME_DIR: scratch };
    const error = await checkEngine({ env }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'E_SANDBOX_UNAVAILABLE', exitCode: 3 });
    const hints = (error as { hints: string[] }).hints.join('\n');
    expect(hints).toContain(`unix://${scratch}/missing.sock: no socket there`);
    expect(hints).toContain(`unix://${scratch}/podman/podman.sock: no socket there`);
    expect(hints).toContain('unix:///run/podman/podman.sock');
    expect(hints).toContain('scripts/setup/engine.sh');
    expect(hints).toContain('podman system service');
  });

  it('does not accept an endpoint that answers ping but cannot start a container', async () => {
    const socket = join(scratch, 'fake.sock');
    const close = await pingOnlyEngine(socket);
    try {
      const error = await checkEngine({ env: { DOCKER_HOST: `unix://${socket}`, XDG_RUNTIME_DIR: scratch } }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'E_SANDBOX_UNAVAILABLE' });
      expect((error as { hints: string[] }).hints.join('\n')).toMatch(new RegExp(`unix://${socket}: .*cannot create containers here`));
    } finally {
      close();
    }
  });

  it("knows the host's address on the bridge: the containers' default gateway", async () => {
    const engine = await checkEngine();
    const gateway = await hostGatewayAddress(engine);
    const route = await docker(['run', '--rm', '--entrypoint', 'cat', engine.probeImage!, '/proc/net/route']);
    const hex = route.stdout
      .split('\n')
      .map((l) => l.trim().split(/\s+/))
      .find((f) => f[1] === '00000000')?.[2];
    expect(hex).toBeDefined();
    const fromRoute = [6, 4, 2, 0].map((i) => parseInt(hex!.slice(i, i + 2), 16)).join('.');
    expect(gateway).toBe(fromRoute);
  });
});
