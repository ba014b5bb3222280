// Tampering (issue 10, item 3): an agent that truncates, rewrites, deletes or forges lines in
// /work/.intutic-chaos/events.jsonl is caught by the runner's host-side mirror: a warning says what it
// did, the repetition is an error (its probes are never a pass), and the kept events are what the
// mirror saw plus later lines, without the forged ones. The baseline, which does not tamper, is clean.
import { appendFileSync, readFileSync, rmSync, truncateSync, writeFileSync, openSync, writeSync, closeSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerRequirement, redisRequirement, requireOrSkip, scratchDir } from '@intutic/testkit';
import { nodeSandboxWorld, NODE_IMAGE as IMAGE, REGISTRY_HOST, type World } from './fixtures/harness.ts';
import { eventsOf, readReportFile } from './fixtures/reports.ts';
import { EventsMirror } from '../src/events-mirror.ts';

const ok = requireOrSkip('hardening tamper', await redisRequirement()) && requireOrSkip('hardening tamper', dockerRequirement());
const EVENTS = '/work/.intutic-chaos/events.jsonl';

let world: World;
beforeAll(async () => {
  if (!ok) return;
  world = await nodeSandboxWorld('tamper');
}, 1_800_000);
afterAll(async () => {
  await world?.close();
});

/** The careful registry agent; in the faulted repetition only (it has a plan), it then tampers. */
async function runTampering(name: string, tamper: string) {
  const agent = [
    `sh agents/registry.sh careful ${REGISTRY_HOST}; rc=$?`,
    // Let the runner's mirror see the fault's lines first.
    'sleep 1',
    `if [ -n "$INTUTIC_CHAOS_PLAN" ]; then ${tamper}; fi`,
    'exit $rc',
  ].join('\n');
  const file = world.experiment('registry-down', { agent, repeat: 1 });
  const out = join(world.root, `${name}.json`);
  const result = await world.cli(['chaos', 'run', file, '--sandbox-image', IMAGE, '--out', out]);
  const report = readReportFile(out);
  const baseline = report.repetitions.find((r) => r.kind === 'baseline')!;
  const faulted = report.repetitions.find((r) => r.kind === 'faulted')!;
  // The honest baseline: no error, no warning about it.
  expect(baseline.error).toBeNull();
  expect(report.run.warnings.filter((w) => w.startsWith('baseline'))).toEqual([]);
  // The tampered one: an error, a warning, never a pass.
  expect(result.code, result.stderr).toBe(1);
  expect(report.verdict).toBe('aborted');
  expect(faulted.error).toMatch(/^the events file was tampered with from inside the sandbox \(.+\): this repetition is not scored$/);
  expect(Object.values(faulted.probes).filter((p) => p === true)).toEqual([]);
  const warning = report.run.warnings.find((w) => w.startsWith('faulted repetition 1: tampering with /work/.intutic-chaos/events.jsonl'));
  expect(warning, report.run.warnings.join('\n')).toBeDefined();
  return { report, faulted, warning: warning!, events: eventsOf(faulted.artifacts.events) };
}

describe('the events mirror on its own', () => {
  const line = (n: number, runId = 'r1') => `{"v":1,"ts":${n},"type":"plan_loaded","source":"gate","run_id":"${runId}"}\n`;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  async function withMirror(body: (file: string, mirror: EventsMirror, artifact: string) => Promise<void>) {
    const dir = scratchDir('intutic-mirror-');
    try {
      const file = join(dir, 'events.jsonl');
      writeFileSync(file, '');
      const mirror = new EventsMirror(file, join(dir, 'mirror.jsonl'));
      await mirror.start();
      await body(file, mirror, join(dir, 'kept.jsonl'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('an honest file, appended to by four writers while it polls, is intact and kept as it is', async () => {
    await withMirror(async (file, mirror, artifact) => {
      const writers = [0, 1, 2, 3].map(async (w) => {
        for (let i = 0; i < 200; i++) await appendFile(file, line(w * 1000 + i));
      });
      const polling = (async () => {
        for (let i = 0; i < 50; i++) await mirror.poll();
      })();
      await Promise.all([...writers, polling]);
      expect(await mirror.finish(artifact, 'r1')).toEqual({ tampering: [], forged: 0 });
      expect(readFileSync(artifact, 'utf8')).toBe(readFileSync(file, 'utf8'));
    });
  });

  it('an append removed before the next poll: the file changed without growing', async () => {
    await withMirror(async (file, mirror, artifact) => {
      appendFileSync(file, line(1));
      await mirror.poll();
      await sleep(20);
      appendFileSync(file, line(2));
      truncateSync(file, line(1).length);
      expect((await mirror.finish(artifact, 'r1')).tampering).toEqual(['the events file was rewritten without growing']);
    });
  });

  it('a recorded line rewritten in place, then appended to: the end check sees it', async () => {
    await withMirror(async (file, mirror, artifact) => {
      appendFileSync(file, line(1) + line(2));
      await mirror.poll();
      const fd = openSync(file, 'r+');
      writeSync(fd, line(9), 0);
      closeSync(fd);
      appendFileSync(file, line(3));
      const result = await mirror.finish(artifact, 'r1');
      expect(result.tampering).toEqual(['lines already recorded were changed or removed']);
      // The union: what the mirror saw first (line 3 came in by the last poll), then what the file adds.
      expect(readFileSync(artifact, 'utf8')).toBe(line(1) + line(2) + line(3) + line(9));
    });
  });

  it('lines with another run id are counted as forged and left out', async () => {
    await withMirror(async (file, mirror, artifact) => {
      appendFileSync(file, line(1) + line(2, 'other') + line(3));
      expect(await mirror.finish(artifact, 'r1')).toEqual({ tampering: [], forged: 1 });
      expect(readFileSync(artifact, 'utf8')).toBe(line(1) + line(3));
    });
  });
});

describe.skipIf(!ok)('an agent that tampers with the events file', () => {
  it('truncates it: detected as shrinking; the kept events still hold the injected fault', async () => {
    const { events, warning } = await runTampering('truncate', `: > ${EVENTS}`);
    expect(warning).toMatch(/the events file shrank from \d+ to 0 bytes/);
    expect(events).toContainEqual(expect.objectContaining({ type: 'fault_injected', fault_id: 'egress.dns_fail' }));
  });

  it('deletes the fault’s lines with sed -i: detected (the file was replaced); the lines are kept', async () => {
    const { events, warning } = await runTampering('sed', `sed -i '/fault_injected/d' ${EVENTS}`);
    expect(warning).toMatch(/the events file was replaced by another file/);
    expect(events).toContainEqual(expect.objectContaining({ type: 'fault_injected', fault_id: 'egress.dns_fail' }));
  });

  it('deletes the file: detected; the kept events are the mirror’s', async () => {
    const { events, warning } = await runTampering('delete', `rm -f ${EVENTS}`);
    expect(warning).toMatch(/the events file was deleted/);
    expect(events).toContainEqual(expect.objectContaining({ type: 'fault_injected', fault_id: 'egress.dns_fail' }));
  });

  it('appends a forged line with another run id: detected and left out of the kept events', async () => {
    const forged = `{"v":1,"ts":1700000000000,"type":"plan_loaded","source":"gate","run_id":"forged-run-id"}`;
    const { events, warning, faulted } = await runTampering('forge', `echo '${forged}' >> ${EVENTS}`);
    expect(warning).toMatch(/1 line\(s\) carried another run's id \(forged; left out\)/);
    expect(events.filter((e) => e.run_id === 'forged-run-id')).toEqual([]);
    expect(events.filter((e) => e.run_id !== undefined).every((e) => e.run_id === faulted.run_id)).toBe(true);
    expect(readFileSync(faulted.artifacts.events, 'utf8')).not.toContain('forged-run-id');
  });
});
