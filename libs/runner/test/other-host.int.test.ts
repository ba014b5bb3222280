// A worker on a test host of its own: a network namespace joined to this machine by one veth link,
// with its own container engine (fixtures/test-host.ts). It shares nothing with this machine's worker
// but Redis (a redis-server the test starts on the link's address): not the project (the run was
// enqueued from a clone deleted right after; both fetch the commit from a git daemon on the link),
// not the home, not the engine. A --parallel run is split between the two machines; the test host's
// repetitions run in its own engine, whose sandboxes reach its proxies on its own bridge; the phases
// stay strict, the report is the one a single worker gives, and neither engine keeps a container.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostGatewayAddress, checkEngine } from '@intutic/sandbox';
import { dockerRequirement, requireOrSkip } from '@intutic/testkit';
import { buildCli, createWorld, type World } from './fixtures/harness.ts';
import {
  enqueueFromGoneClone,
  finishedCarefulRun,
  NODE_IMAGE,
  serveProject,
  startedBy,
  startWorker,
  stopWorkers,
  type WorkerProcess,
} from './fixtures/machines.ts';
import { startTestHost, testHostRequirement, type TestHost } from './fixtures/test-host.ts';

const ok = requireOrSkip('a worker on a host of its own', dockerRequirement()) && requireOrSkip('a worker on a host of its own', testHostRequirement());

let host: TestHost;
let redis: ChildProcess;
let world: World;
let served: Awaited<ReturnType<typeof serveProject>>;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  if (!ok) return;
  buildCli();
  host = await startTestHost(process.pid);
  host.loadImages([NODE_IMAGE]);
  // The one thing the two machines share: a Redis on this machine's end of the link.
  const port = 30_000 + (process.pid % 20_000);
  const redisUrl = `redis://${host.hostIp}:${port}`;
  world = await createWorld('other-host', { redisUrl, host: host.hostIp });
  const dir = join(world.root, 'redis');
  mkdirSync(dir);
  // Bound to the link's address only, so protected mode (which refuses all but loopback) is off.
  redis = spawn('redis-server', ['--bind', host.hostIp, '--port', String(port), '--protected-mode', 'no', '--dir', dir, '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  for (let waited = 0; ; waited += 100) {
    try {
      execFileSync('redis-cli', ['-h', host.hostIp, '-p', String(port), 'ping'], { stdio: 'pipe' });
      break;
    } catch {
      if (waited > 20_000) throw new Error(`redis-server did not answer on ${host.hostIp}:${port}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  served = await serveProject(world, host.hostIp);
}, 900_000);

afterAll(async () => {
  // Each step whatever the one before it did: the test host must never outlive the suite.
  try {
    for (const worker of workers) if (worker.exitCode === null) worker.kill('SIGKILL');
    await served?.close();
    await world?.close();
  } finally {
    if (redis && redis.exitCode === null) {
      redis.kill('SIGTERM');
      await once(redis, 'exit');
    }
    await host?.close();
  }
}, 120_000);

const containersIn = (dockerHost: string | undefined, runId: string) =>
  execFileSync('docker', [...(dockerHost ? ['--host', dockerHost] : []), 'ps', '-aq', '--filter', `label=intutic.chaos.run=${runId}`], {
    encoding: 'utf8',
  }).trim();

describe.skipIf(!ok)('a worker on a test host of its own, with its own engine', () => {
  it('takes its share of a --parallel run, runs it in its own engine, and the report is the one-worker report', async () => {
    const runId = await enqueueFromGoneClone(world, served.remote, 'two-hosts');
    const here = startWorker(world, 'here', join(world.root, 'home-here'));
    const there = startWorker(world, 'there', join(world.root, 'home-there'), {
      env: { DOCKER_HOST: host.dockerHost },
      launch: (command, args, options) => host.spawn(command, args, options),
    });
    workers.push(here, there);
    try {
      const { jobs } = await finishedCarefulRun(world, runId);
      const ranThere = startedBy(there, runId).map((line) => line.slice('started '.length));
      const ranHere = startedBy(here, runId).map((line) => line.slice('started '.length));
      expect(ranThere.length, there.output()).toBeGreaterThan(0);
      expect(ranHere.length, here.output()).toBeGreaterThan(0);
      // Each machine's repetitions reached their proxy on their own engine's bridge.
      const proxyOf = (id: string) => /proxy http:\/\/([\d.]+):/.exec(jobs.find((j) => j.id === id)!.logs.find((l) => / proxy http:/.test(l)) ?? '')?.[1];
      const gatewayHere = await hostGatewayAddress(await checkEngine());
      for (const id of ranThere) expect(proxyOf(id), id).toBe(host.bridgeGateway);
      for (const id of ranHere) expect(proxyOf(id), id).toBe(gatewayHere);
      expect(containersIn(host.dockerHost, runId)).toBe('');
      expect(containersIn(undefined, runId)).toBe('');
    } finally {
      await stopWorkers(here, there);
    }
  }, 600_000);
});
