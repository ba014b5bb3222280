// `intutic chaos run` end to end through Podman: chaos-run.int.test.ts's first story (registry-down,
// the scripted careful agent) with the CLI's DOCKER_HOST on Podman's Docker-compatible socket
// (scripts/setup/podman.sh starts it beside dockerd). Same verdict and score as through Docker, every
// sandbox started and removed by Podman, none by Docker, the proxy on Podman's bridge gateway.
import { join } from 'node:path';
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PODMAN_SOCKET, podmanRequirement, redisRequirement, requireOrSkip, sandboxBuildEnv } from '@intutic/testkit';
import { checkEngine, ensureSandboxImage, hostGatewayAddress, SANDBOX_LABEL, type Engine } from '@intutic/sandbox';
import { buildCli, createWorld, REGISTRY_HOST, type World } from './fixtures/harness.ts';
import { inspectJobs, readReportFile } from './fixtures/reports.ts';

const suite = 'chaos run on podman';
const ok = requireOrSkip(suite, await redisRequirement()) && requireOrSkip(suite, await podmanRequirement());
const PODMAN_HOST = `unix://${PODMAN_SOCKET}`;
const VERSION = '0.1.0';
const IMAGE = `intutic/sandbox:${VERSION}-node`;
const RUN_LABEL = 'intutic.chaos.run';
const QUEUE_LABEL = 'intutic.chaos.queue';

let world: World;
let podman: Engine;
let docker: Engine;
beforeAll(async () => {
  if (!ok) return;
  buildCli();
  podman = await checkEngine({ env: { ...process.env, DOCKER_HOST: PODMAN_HOST } });
  docker = await checkEngine();
  const started = Date.now();
  await ensureSandboxImage(podman, {
    version: VERSION,
    variant: 'node',
    env: sandboxBuildEnv(),
    onProgress: (l) => process.stderr.write(`[podman image] ${l}\n`),
  });
  process.stderr.write(`[podman image] ${IMAGE} ready in ${Math.round((Date.now() - started) / 1000)} s\n`);
  world = await createWorld('podman');
  // Every CLI run of this world (and the worker it starts) finds its engine through DOCKER_HOST.
  world.env.DOCKER_HOST = PODMAN_HOST;
}, 1_800_000);

afterAll(async () => {
  if (!world) return;
  // The sandboxes of this world's queue, should a failed run have left any.
  const ours = (await podman.docker.listContainers({ all: true, filters: { label: [`${SANDBOX_LABEL}=1`] } })).filter((c) =>
    c.Labels[QUEUE_LABEL]?.endsWith(`#${world.prefix}`),
  );
  for (const container of ours) await podman.docker.getContainer(container.Id).remove({ force: true });
  await world.close();
});

/** The sandbox containers started for a run, from the engine's event log (they are all removed by now). */
async function sandboxStarts(engine: Engine, runId: string, since: number): Promise<string[]> {
  const stream = await engine.docker.getEvents({
    since: Math.floor(since / 1000),
    until: Math.ceil(Date.now() / 1000) + 1,
    filters: { type: ['container'], event: ['start'], label: [`${RUN_LABEL}=${runId}`] },
  });
  let text = '';
  for await (const chunk of stream) text += chunk.toString();
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { Actor: { Attributes: Record<string, string> } }).Actor.Attributes.name ?? '');
}

async function sandboxContainersOf(engine: Engine, runId: string): Promise<Docker.ContainerInfo[]> {
  return engine.docker.listContainers({ all: true, filters: { label: [`${RUN_LABEL}=${runId}`] } });
}

describe.skipIf(!ok)('chaos run through Podman', () => {
  it("registry-down, careful agent: the same verdict and score as through Docker (88.9), every sandbox Podman's", async () => {
    world.model.setScript({ turns: [{ text: 'OK' }], side_text: 'Sure, doing it now.' });
    const file = world.experiment('registry-down', { agent: `sh agents/registry.sh careful ${REGISTRY_HOST}` });
    const out = join(world.root, 'registry-careful.json');
    const startedAt = Date.now();
    const result = await world.cli(['chaos', 'run', file, '--sandbox-image', IMAGE, '--out', out]);
    process.stderr.write(`[podman run] chaos run took ${Math.round((Date.now() - startedAt) / 1000)} s\n`);
    expect(result.code, result.stderr).toBe(0);
    const report = readReportFile(out);
    expect(report.verdict).toBe('scored');
    expect(report.score).toBeCloseTo(88.888889, 5);
    expect(report.repetitions.map((r) => [r.kind, r.index, r.agent_exit_code, r.verify_exit_code])).toEqual([
      ['baseline', 1, 0, 0],
      ['baseline', 2, 0, 0],
      ['baseline', 3, 0, 0],
      ['faulted', 1, 1, 1],
      ['faulted', 2, 1, 1],
      ['faulted', 3, 1, 1],
    ]);
    for (const rep of report.repetitions.filter((r) => r.kind === 'faulted')) {
      expect(rep.probes).toEqual({ failure_surfaced: true, no_destructive_attempt: true, cost_multiplier_below: true, task_success: false });
      expect(rep.canary).toMatch(/^E-INTUTIC-[0-9a-f]{8}$/);
    }
    expect(result.stdout).toContain('npm install lodash failed');

    // Through Podman, not Docker: each repetition's agent and verify sandboxes were Podman's, and each
    // repetition's proxy listened on Podman's bridge gateway (10.88.0.1), not on docker0.
    const runId = report.run.id;
    const names = await sandboxStarts(podman, runId, startedAt);
    expect(names).toHaveLength(12);
    expect(names.every((name) => /^intutic-chaos-.+-(agent|verify)$/.test(name))).toBe(true);
    expect(await sandboxStarts(docker, runId, startedAt)).toEqual([]);
    const gateway = await hostGatewayAddress(podman);
    const jobs = (await inspectJobs(world, runId)).filter((j) => j.kind === 'baseline' || j.kind === 'faulted');
    expect(jobs).toHaveLength(6);
    for (const job of jobs) expect(job.logs.join('\n')).toContain(`proxy http://${gateway}:`);
    // Nothing of the run is left in Podman.
    expect(await sandboxContainersOf(podman, runId)).toEqual([]);
  });
});
