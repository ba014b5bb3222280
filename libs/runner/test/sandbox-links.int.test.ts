// The host never follows what the sandbox planted (issue 40, item 2). An agent in the real sandbox
// replaces the events file (and every other file in /work/.intutic-chaos and the gates' log
// directory) with a symbolic link to /proc/self/environ, a symbolic link to a host file outside the
// workspace, a FIFO, or a hard link. Each run completes (nothing blocks on the FIFO), a warning names
// the events file, the repetition is an error, the host file is not written to, and nothing under
// the report's directory, in the CLI's output or in the job logs holds the worker's environment or
// the host file's content.
import { randomBytes } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerRequirement, redisRequirement, requireOrSkip } from '@intutic/testkit';
import { nodeSandboxWorld, NODE_IMAGE as IMAGE, REGISTRY_HOST, type World } from './fixtures/harness.ts';
import { inspectJobs, readReportFile } from './fixtures/reports.ts';

const ok = requireOrSkip('sandbox links', await redisRequirement()) && requireOrSkip('sandbox links', dockerRequirement());

/** In the worker's environment (what /proc/self/environ shows the host), never in the sandbox's. */
const ENV_MARKER = `environ-marker-${randomBytes(8).toString('hex')}`;
const FILE_MARKER = `host-file-marker-${randomBytes(8).toString('hex')}`;
/** The workspace's README, a file the host made: the target of the hard link. */
const README_LINE = 'A small project the chaos tests run agents in.';

let world: World;
let hostFile: string;
beforeAll(async () => {
  if (!ok) return;
  world = await nodeSandboxWorld('links');
  world.env.INTUTIC_TEST_ENVIRON_MARKER = ENV_MARKER;
  // Outside the project and the workspace: only a link the host followed could reach it.
  hostFile = join(world.root, 'host-secret.txt');
  writeFileSync(hostFile, `${FILE_MARKER}\n`);
}, 1_800_000);
afterAll(async () => {
  await world?.close();
});

/** Every file under `dir`, none of them a link (the runner never makes one there). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => {
      const info = lstatSync(path);
      expect(info.isSymbolicLink(), `${path} is a link`).toBe(false);
      return info.isFile();
    });
}

/** How each case plants a path `$1` in the sandbox. */
const PLANTS = {
  'a link to /proc/self/environ': { plant: 'ln -s /proc/self/environ "$1"', reason: 'a symbolic link' },
  'a link to a host file outside the workspace': { plant: () => `ln -s '${hostFile}' "$1"`, reason: 'a symbolic link' },
  'a FIFO': { plant: 'mkfifo "$1"', reason: 'a named pipe \\(FIFO\\)' },
  // The host-made README where the mount allows a link to it, else a copy of it in the same directory.
  'a hard link': {
    plant:
      'ln /work/README.md "$1" 2>/dev/null && echo "hard-linked README.md" >&2 || { cp /work/README.md /work/.intutic-chaos/.copy; ln /work/.intutic-chaos/.copy "$1" && echo "hard-linked a copy" >&2; }',
    reason: 'a file with \\d names \\(a hard link\\)',
  },
} as const;

async function runPlanting(name: keyof typeof PLANTS) {
  const { plant, reason } = PLANTS[name];
  const agent = [
    `sh agents/registry.sh careful ${REGISTRY_HOST}; rc=$?`,
    // Let the runner's mirror see the fault's lines first.
    'sleep 1',
    `plant() { ${typeof plant === 'function' ? plant() : plant}; }`,
    // In the faulted repetition only (it has a plan): every file the sandbox may write, replaced.
    'if [ -n "$INTUTIC_CHAOS_PLAN" ]; then',
    '  for f in /work/.intutic-chaos/* /work/.intutic/events/*; do',
    '    [ -e "$f" ] || continue',
    '    rm -f "$f" && plant "$f"',
    '  done',
    '  sleep 1',
    'fi',
    'exit $rc',
  ].join('\n');
  const file = world.experiment('registry-down', { agent, repeat: 1 });
  const outDir = join(world.root, 'out', name.replace(/\W+/g, '-'));
  const out = join(outDir, 'report.json');
  const started = Date.now();
  const result = await world.cli(['chaos', 'run', file, '--sandbox-image', IMAGE, '--out', out], { timeoutMs: 400_000 });
  // Completed, not killed by the timeout: nothing blocked on what the agent planted.
  expect(result.code, result.stderr).toBe(1);
  expect(Date.now() - started).toBeLessThan(400_000);
  const report = readReportFile(out);
  const baseline = report.repetitions.find((r) => r.kind === 'baseline')!;
  const faulted = report.repetitions.find((r) => r.kind === 'faulted')!;
  // Nothing of any target anywhere: the report, every artifact, the CLI's output, the job logs.
  const logs = (await inspectJobs(world, report.run.id)).flatMap((job) => job.logs);
  const texts: Array<[string, string]> = [
    ...filesUnder(outDir).map((path): [string, string] => [path, readFileSync(path, 'latin1')]),
    ['chaos run stdout', result.stdout],
    ['chaos run stderr', result.stderr],
    ['job logs', logs.join('\n')],
  ];
  expect(texts.length).toBeGreaterThan(8);
  for (const [where, text] of texts) {
    expect(text, where).not.toContain(ENV_MARKER);
    expect(text, where).not.toContain(FILE_MARKER);
    expect(text, where).not.toContain('INTUTIC_QUEUE_PREFIX=');
    if (name === 'a hard link') expect(text, where).not.toContain(README_LINE);
  }
  // The host file was not written to through the link either (the proxy and the runner append events).
  expect(readFileSync(hostFile, 'utf8')).toBe(`${FILE_MARKER}\n`);
  expect(baseline.error).toBeNull();
  expect(report.verdict).toBe('aborted');
  expect(faulted.error).toMatch(/^the events file was tampered with from inside the sandbox \(.+\): this repetition is not scored$/);
  expect(Object.values(faulted.probes).filter((p) => p === true)).toEqual([]);
  const warning = report.run.warnings.find((w) => w.startsWith('faulted repetition 1: tampering with /work/.intutic-chaos/events.jsonl:'));
  expect(warning, report.run.warnings.join('\n')).toMatch(new RegExp(`the events file was replaced by ${reason} \\(not read\\)`));

  return { report, faulted, result };
}

describe.skipIf(!ok)('an agent that plants links, FIFOs and hard links where the host reads', () => {
  for (const name of Object.keys(PLANTS) as Array<keyof typeof PLANTS>) {
    it(`${name}: the run completes, the repetition is an error, nothing of the target is kept`, async () => {
      const { faulted } = await runPlanting(name);
      // The kept events are the runner's mirror: the injected fault seen before the planting.
      const kept = readFileSync(faulted.artifacts.events, 'utf8');
      expect(kept).toContain('"fault_id":"egress.dns_fail"');
      if (name === 'a hard link') process.stderr.write(`[links] ${readFileSync(faulted.artifacts.agent_stderr, 'utf8')}\n`);
    }, 600_000);
  }
});
