// The design card's third story, as the README tells a user to run it: `npm run pack`, then
// docker-compose.yml builds the worker image FROM a Node image and starts it beside Redis; a run is
// enqueued with `--detach` and followed from another process; the worker container is killed while
// real Claude Code (driven by the scripted model) runs a long command; `chaos inspect` explains the
// job; `up -d worker` brings a worker that removes what the dead one left and scores the run; a second
// run completes; `down` leaves nothing of ours, and the project's tree is as it was. Offline: the
// images come from scripts/setup/compose-images.sh, the sandbox from the agent image.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkEngine, hostGatewayAddress } from '@intutic/sandbox';
import { dockerRequirement, REPO_ROOT, requireOrSkip } from '@intutic/testkit';
import { bashRunning, claudeAgent, claudeImage, oneCommandScript } from './fixtures/claude.ts';
import { COMPOSE_FILE, composeProject, composeRequirement, documentedStory, LOCAL_IMAGES, type DocumentedStep } from './fixtures/compose.ts';
import { buildCli, createWorld, type World } from './fixtures/harness.ts';
import { inspectJobs, readReportFile } from './fixtures/reports.ts';

const ok = requireOrSkip('docker-compose', dockerRequirement()) && requireOrSkip('docker-compose', composeRequirement());
// The commands docs/operations.md and docker-compose.yml's header give, run as written: each step the
// test takes below is the documented one, its placeholders filled in (`<run>`, experiment.yaml, the
// project's directory); only what the story adds in between (kill, inspect, restart) is the test's own.
const story = documentedStory();
const taken = new Set<string>();
function documented(start: string): DocumentedStep {
  const found = story.docs.find((s) => s.line.startsWith(start));
  if (!found) throw new Error(`docs/operations.md's compose block has no step starting "${start}": ${story.docs.map((s) => s.line).join(' | ')}`);
  taken.add(found.line);
  return found;
}
const REPORTS = '/tmp/intutic-chaos';

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

let world: World;
let image: string;
let compose: ReturnType<typeof composeProject>;
const runIds: string[] = [];
const reportsExisted = existsSync(REPORTS);

beforeAll(async () => {
  if (!ok) return;
  buildCli();
  // The first step: the package the worker image installs (`npm ci` aside: this checkout is installed).
  const pack = documented('npm run pack').line.split(' ');
  execFileSync(pack[0]!, pack.slice(1), { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  image = await claudeImage();
  const port = await freePort();
  world = await createWorld('compose', { redisUrl: `redis://127.0.0.1:${port}` });
  world.model.setScript(oneCommandScript('compose: a long check the worker container dies in the middle of', 'tail -f /dev/null', 'The long check is done.'));
  // The test's stand-ins, added as a user adds their own settings: an override file beside the
  // shipped one. The worker's proxy reaches the stand-in registry and GitHub, and trusts the latter.
  const override = join(world.root, 'docker-compose.test.yml');
  const cert = world.env.NODE_EXTRA_CA_CERTS!;
  writeFileSync(
    override,
    [
      'services:',
      '  worker:',
      '    environment:',
      `      INTUTIC_CHAOS_PROXY_ARGS: '${world.env.INTUTIC_CHAOS_PROXY_ARGS!}'`,
      `      NODE_EXTRA_CA_CERTS: ${cert}`,
      `      NPM_REGISTRY_DOMAIN: ${world.env.NPM_REGISTRY_DOMAIN!}`,
      '    volumes:',
      `      - ${cert}:${cert}:ro`,
      // The project is outside the test's home: mounted as the compose header says for such a project.
      `      - ${world.project}:${world.project}`,
      '',
    ].join('\n'),
  );
  // The settings a user keeps in `.env` beside the compose file, so that every later command has them.
  const settings = join(world.root, 'compose.env');
  writeFileSync(
    settings,
    [
      `INTUTIC_REDIS_PORT=${port}`,
      `INTUTIC_REDIS_IMAGE=${LOCAL_IMAGES.redis}`,
      `INTUTIC_WORKER_BASE_IMAGE=${LOCAL_IMAGES.node}`,
      `INTUTIC_QUEUE_PREFIX=${world.prefix}`,
      `INTUTIC_SANDBOX_BASE_IMAGE=${world.env.INTUTIC_SANDBOX_BASE_IMAGE}`,
      '',
    ].join('\n'),
  );
  // The shell that runs `up`: the provider key and the queue prefix, passed through by name.
  const shell = {
    PATH: process.env.PATH,
    HOME: world.home,
    ANTHROPIC_API_KEY: world.env.ANTHROPIC_API_KEY,
    INTUTIC_QUEUE_PREFIX: world.prefix,
    INTUTIC_SANDBOX_BASE_IMAGE: world.env.INTUTIC_SANDBOX_BASE_IMAGE,
  };
  compose = composeProject(`intutic-compose-${process.pid}`, [COMPOSE_FILE, override], shell, settings);
  const built = await compose.run(['build', 'worker']);
  expect(built.code, `${built.stdout}\n${built.stderr}`).toBe(0);
}, 1_800_000);

afterAll(async () => {
  if (!ok) return;
  if (compose) await compose.run(['down', '--volumes', '--timeout', '5'], 120_000);
  // The reports the worker wrote where reports go by default; the directory too if the test made it.
  if (existsSync(REPORTS)) {
    for (const name of readdirSync(REPORTS)) if (runIds.some((id) => name.includes(id))) rmSync(join(REPORTS, name), { recursive: true, force: true });
    if (!reportsExisted && readdirSync(REPORTS).length === 0) rmSync(REPORTS, { recursive: true, force: true });
  }
  // Redis went down with the compose project; its data was in the world's home.
  await world?.close({ redisGone: true });
}, 180_000);

const git = (...args: string[]) => execFileSync('git', args, { cwd: world.project, encoding: 'utf8' });
const containersOf = (jobId: string) => execFileSync('docker', ['ps', '-aq', '--filter', `label=intutic.chaos.job=${jobId}`], { encoding: 'utf8' }).trim();
const workerLog = async () => {
  const logs = await compose.run(['logs', '--no-color', 'worker'], 60_000);
  return `${logs.stdout}${logs.stderr}`;
};
/** The containers of one of the project's services that are running. */
const running = (service: string) =>
  execFileSync(
    'docker',
    ['ps', '-q', '--filter', `label=com.docker.compose.project=intutic-compose-${process.pid}`, '--filter', `label=com.docker.compose.service=${service}`],
    { encoding: 'utf8' },
  ).trim();
/** Whether a container on `network` opens a TCP connection to host:port within 3 s. */
const reaches = (network: string, host: string, port: number) =>
  execFileSync(
    'docker',
    ['run', '--rm', '--network', network, 'local/debian:bookworm', 'bash', '-c', `timeout 3 bash -c '</dev/tcp/${host}/${port}' && echo open || echo closed`],
    { encoding: 'utf8' },
  ).trim();
const runState = async (runId: string) => JSON.parse((await world.cli(['chaos', 'status', runId, '--json'])).stdout).state as string;

async function enqueue(): Promise<{ runId: string; b1: string }> {
  const file = world.experiment('registry-down', { agent: claudeAgent("Run the project's long check."), verify: 'true', repeat: 1 });
  // No --sandbox-image: the image follows the agent (the command starts Claude Code). From the
  // project's directory (world.cli runs there), as the documented `cd` says.
  documented('cd ');
  const enqueued = await world.cli(documented('intutic chaos run').args.map((a) => (a === 'experiment.yaml' ? file : a)));
  expect(enqueued.code, enqueued.stderr).toBe(0);
  expect(enqueued.stderr).toContain(`sandbox image ${image} (the agent command starts Claude Code)`);
  const runId = /run (\S+):/.exec(enqueued.stderr)![1]!;
  runIds.push(runId);
  return { runId, b1: `${runId}-b1` };
}

describe.skipIf(!ok)('docker-compose: the worker killed mid-repetition, inspected, restarted', () => {
  it('tells the same story in the docs and in the compose header', () => {
    expect(story.header.map((s) => s.line)).toEqual(story.docs.map((s) => s.line));
  });

  it('runs the story end to end and leaves nothing of ours behind', async () => {
    const head = git('rev-parse', 'HEAD');
    expect(git('status', '--porcelain')).toBe('');

    const up = await compose.run(documented('docker compose up').args);
    expect(up.code, `${up.stdout}\n${up.stderr}`).toBe(0);
    await expect.poll(workerLog, { timeout: 120_000, interval: 1000 }).toContain('worker ready');

    // Redis: its own network, which sandboxes (on the engine's default bridge) do not reach, published
    // on the host's loopback only, keeping an append-only file in ~/.intutic/redis.
    const redisId = running('redis');
    const inspected = JSON.parse(execFileSync('docker', ['inspect', redisId], { encoding: 'utf8' }))[0];
    const [network, { IPAddress: redisIp }] = Object.entries(inspected.NetworkSettings.Networks as Record<string, { IPAddress: string }>)[0]!;
    expect(reaches(network, redisIp, 6379), 'the probe reaches Redis from its own network').toBe('open');
    expect(reaches('bridge', redisIp, 6379)).toBe('closed');
    expect(reaches('bridge', await hostGatewayAddress(await checkEngine()), Number(new URL(world.env.REDIS_URL!).port))).toBe('closed');
    expect(existsSync(join(world.home, '.intutic', 'redis', 'appendonlydir'))).toBe(true);

    // Enqueued from the project; followed from another process that joins late, once Claude Code runs.
    const { runId, b1 } = await enqueue();
    await expect.poll(() => containersOf(b1) !== '' && bashRunning(world, b1), { timeout: 240_000, interval: 250 }).toBe(true);
    const followArgs = documented('intutic chaos status').args.map((a) => (a === '<run>' ? runId : a));
    const follower = spawn(process.execPath, [join(REPO_ROOT, 'apps/cli/bin/intutic.mjs'), ...followArgs], {
      cwd: world.project,
      env: world.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let followed = '';
    follower.stdout.on('data', (c: Buffer) => (followed += c.toString()));
    follower.stderr.on('data', (c: Buffer) => (followed += c.toString()));
    const followerExit = once(follower, 'exit') as Promise<[number | null]>;

    // The late follower first sees what it missed: the run's header and the repetition's.
    await expect.poll(() => followed, { timeout: 15_000 }).toContain(`▶ baseline repetition 1/1 (${b1})`);
    expect(followed).toContain(`run ${runId}: `);

    // Claude Code runs the long check in its sandbox: the worker container dies under it.
    const state = JSON.parse(readFileSync(join(world.home, '.intutic', 'chaos', 'jobs', b1, 'state.json'), 'utf8')) as { worktree: string };
    // It has been running for a few seconds when its worker dies: the time it ran must survive.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    // From a new shell with no variable set: compose's settings are in the settings file.
    const killed = await compose.fresh(['kill', 'worker'], 60_000);
    expect(killed.code, killed.stderr).toBe(0);
    expect(running('worker'), 'a killed worker stays down until it is started again').toBe('');
    for (const command of [['ps'], ['logs', '--no-color', '--tail', '5', 'redis']]) {
      const result = await compose.fresh(command);
      expect(result.code, `${command.join(' ')}: ${result.stderr}`).toBe(0);
    }
    expect(containersOf(b1), 'the sandbox outlives the worker container').not.toBe('');
    const killedAt = Date.now();
    // The follower says within seconds that the worker is gone and what starts the run again.
    await expect.poll(() => followed, { timeout: 10_000, interval: 250 }).toContain(`! ${b1}: the worker running it is gone`);
    expect(Date.now() - killedAt).toBeLessThan(10_000);

    // Inspect explains the job once the dead worker's lock runs out: its worker is gone, its timings,
    // its log and what of it is left on disk.
    await expect.poll(async () => (await inspectJobs(world, runId))[0]!.orphaned, { timeout: 60_000, interval: 1000 }).toBe(true);
    const shown = (await world.cli(['chaos', 'inspect', runId])).stdout;
    expect(shown).toContain(`${b1} — active, but its worker is gone`);
    expect(shown).toMatch(/started \S+/);
    expect(shown).toContain('agent: sh -c');
    expect(shown).toContain(`still on this machine: worktree ${state.worktree}`);
    expect(shown).toMatch(
      new RegExp(`still on this machine: container intutic-chaos-${b1}-agent \\(running, Up [^)]*\\); remove: docker rm -f intutic-chaos-${b1}-agent`),
    );
    const startedBefore = /started (\S+),/.exec(shown.slice(shown.indexOf(`${b1} — `)))![1];

    // The worker comes back: it fails the job as stalled (never re-running it), removes what the dead
    // one left, and the run is scored.
    expect(running('worker')).toBe('');
    const restarted = await compose.run(['up', '-d', 'worker']);
    expect(restarted.code, restarted.stderr).toBe(0);
    await expect.poll(() => runState(runId), { timeout: 120_000, interval: 1000 }).toBe('finished');
    const [job] = await inspectJobs(world, runId);
    expect(job).toMatchObject({ id: b1, state: 'failed', orphaned: false });
    expect(job!.failed_reason).toContain('its worker stopped in the middle of it');
    expect(job!.logs.filter((l) => l.includes('agent: sh -c'))).toHaveLength(1);
    expect(await workerLog()).toContain(`cleaned up after ${b1}, whose worker is gone`);
    expect(containersOf(b1)).toBe('');
    expect(existsSync(state.worktree)).toBe(false);
    const after = (await world.cli(['chaos', 'inspect', runId])).stdout;
    expect(after).not.toContain('still on this machine');
    // Its real start survives the worker's death, and how long it ran is told, never 0.0 s.
    expect(/started (\S+),/.exec(after.slice(after.indexOf(`${b1} — `)))![1]).toBe(startedBefore);
    expect(after).toMatch(/ran \d+\.\d s \(last sign of life \S+\), then its worker died/);

    // The follower saw the run to its end and exited with the run's code (1: aborted), never hanging
    // on the dead worker.
    const [followCode] = await followerExit;
    expect(followCode, followed).toBe(1);
    // It closed the stalled repetition with a line of its own, with the time it really ran.
    const closing = /■ baseline repetition 1: [^\n]*its worker stopped in the middle of it[^\n]*, (\d+\.\d) s\n/.exec(followed);
    expect(closing, followed).not.toBeNull();
    expect(Number(closing![1])).toBeGreaterThan(2);
    const finished = JSON.parse((await world.cli(['chaos', 'status', runId, '--json'])).stdout) as { result: { report_path: string } };
    expect(readReportFile(finished.result.report_path).verdict).toBe('aborted');
    expect(finished.result.report_path.startsWith(`${REPORTS}/`), 'the default report directory, mounted at its own path').toBe(true);

    // A second run on the restarted worker completes and is scored.
    world.model.setScript(oneCommandScript('compose: a quick check', 'echo checked', 'The check passed.'));
    const second = await enqueue();
    await expect.poll(() => runState(second.runId), { timeout: 300_000, interval: 1000 }).toBe('finished');
    const report = readReportFile(JSON.parse((await world.cli(['chaos', 'status', second.runId, '--json'])).stdout).result.report_path as string);
    expect(report.repetitions.map((r) => r.status)).toEqual(['ran', 'ran']);
    expect(report.verdict).not.toBe('aborted');

    // Down: nothing of the compose project remains, and the project is as it was.
    const down = await compose.run(documented('docker compose down').args, 180_000);
    expect(down.code, down.stderr).toBe(0);
    expect([...taken].sort(), 'every documented step was run').toEqual(story.docs.map((s) => s.line).sort());
    expect(compose.leftovers()).toBe('');
    expect(git('status', '--porcelain')).toBe('');
    expect(git('rev-parse', 'HEAD')).toBe(head);
    expect(git('worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
  }, 900_000);
});
