// Observing a run's events files in threads gives exactly what observing them inline gives, in the
// paths' order; a missing file is "not found" either way; a file that cannot be read fails the same.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatEvent } from '@intutic/events';
import type { Experiment } from '@intutic/experiment';
import { observeAll, observeWorkerPath } from '../src/observe.ts';
import { scratchDir } from '@intutic/testkit';

const dir = scratchDir('intutic-observe-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const experiment: Experiment = {
  name: 'observe',
  description: '',
  agent: 'agent',
  verify: 'verify',
  repeat: 3,
  faults: [{ index: 0, id: 'tool.error', match: { tool: 'Bash' }, after_calls: 1, times: 1, options: { message: 'boom' } }],
  probes: [
    { id: 'failure_surfaced', weight: 1 },
    { id: 'recovered_within', weight: 1, value: 3 },
    { id: 'cost_multiplier_below', weight: 1, value: 3 },
  ],
  abort: { destructive_attempt: true, cost_usd_above: 2, wall_clock_s_above: 900 },
  sandbox_image: null,
};

/** A repetition whose calls differ by `seed`: destructive attempts, costs, a fault, torn lines. */
function writeRepetition(name: string, seed: number, turns: number): string {
  const lines: string[] = [formatEvent({ source: 'gate', type: 'plan_loaded', faults: [0], ts: 1 })];
  for (let i = 0; i < turns; i++) {
    const ts = 1000 + i * 50;
    lines.push(
      formatEvent({
        source: 'proxy',
        type: 'llm_call',
        provider: 'anthropic',
        endpoint: '/v1/messages',
        model: 'claude-sonnet-4-5',
        status: 200,
        stream: true,
        input_tokens: 10 + seed,
        output_tokens: i,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        cost_usd: 0.001 * seed,
        ts,
      }),
    );
    lines.push(
      formatEvent({
        source: 'gate',
        type: 'gate_decision',
        tool: 'Bash',
        decision: i % (seed + 2) === 0 ? 'block' : 'allow',
        rule: null,
        mode: null,
        destructive: i % (seed + 2) === 0,
        ts: ts + 1,
      }),
    );
    if (i === seed) lines.push(formatEvent({ source: 'gate', type: 'fault_injected', fault_index: 0, fault_id: 'tool.error', target: 'Bash', ts: ts + 2 }));
    lines.push(formatEvent({ source: 'gate', type: 'tool_call', tool: i % 3 === 0 ? 'Read' : 'Bash', ok: i !== seed, ts: ts + 3 }));
    if (i % 97 === 0) lines.push('{"v":1,"ts":12,"sou\n');
  }
  const path = join(dir, name);
  writeFileSync(path, lines.join(''));
  return path;
}

describe('observeAll', () => {
  const paths = [
    writeRepetition('a.jsonl', 1, 400),
    writeRepetition('b.jsonl', 2, 900),
    join(dir, 'missing.jsonl'),
    writeRepetition('c.jsonl', 3, 50),
    writeRepetition('d.jsonl', 4, 700),
  ];

  it('gives the same observations in threads as inline, in the order of the paths', async () => {
    expect(observeWorkerPath(), 'the observation thread bundle is built by `npm run build`').not.toBeNull();
    const inline = await observeAll(paths, experiment, { threads: 1 });
    const threaded = await observeAll(paths, experiment, { threads: 2, minParallelBytes: 0 });
    expect(inline.threads).toBe(0);
    expect(threaded.threads).toBe(2);
    expect(threaded.observations).toEqual(inline.observations);
    expect(inline.observations.map((o) => o.found)).toEqual([true, true, false, true, true]);
    expect(inline.observations[1]!.facts.destructive.count).toBeGreaterThan(0);
    expect(inline.observations[1]!.malformed).toBe(10);
    expect(inline.observations[0]!.facts.injections).toEqual([{ fault_index: 0, fault_id: 'tool.error', count: 1 }]);
  });

  it('observes small runs inline: threads would only add their start-up', async () => {
    const observed = await observeAll(paths, experiment);
    expect(observed.threads).toBe(0);
  });

  it('fails as inline observation fails when a file cannot be read', async () => {
    const unreadable = join(dir, 'a-directory.jsonl');
    mkdirSync(unreadable);
    const withDir = [paths[0]!, unreadable, paths[1]!];
    const inline = await observeAll(withDir, experiment, { threads: 1 }).catch((e: Error) => e.message);
    const threaded = await observeAll(withDir, experiment, { threads: 2, minParallelBytes: 0 }).catch((e: Error) => e.message);
    expect(inline).toMatch(/EISDIR/);
    expect(threaded).toBe(inline);
  });
});
