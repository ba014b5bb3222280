import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatEvent, type EventInput } from '@intutic/events';
import { AbortConditions, AbortMonitor, POLL_MS, type MonitorTrigger } from '../src/index.ts';

const settings = { destructive_attempt: true, cost_usd_above: 2, wall_clock_s_above: 900 };
const llm = (cost: number): EventInput => ({
  type: 'llm_call', source: 'proxy', provider: 'anthropic', endpoint: '/v1/messages', model: 'claude', status: 200, stream: true,
  input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, cost_usd: cost,
});
const gate = (destructive: boolean, decision: 'allow' | 'block' = 'allow'): EventInput => ({
  type: 'gate_decision', source: 'gate', tool: 'Bash', decision, rule: null, mode: null, destructive,
});
const parse = (e: EventInput) => JSON.parse(formatEvent(e));

describe('the abort conditions', () => {
  it('destructive_attempt: a gate marked a call destructive, blocked or not', () => {
    const c = new AbortConditions(settings, 0);
    expect(c.observe(parse(gate(false)))).toBeNull();
    expect(c.observe(parse(gate(true, 'block')))).toMatchObject({ condition: 'destructive_attempt' });
    expect(new AbortConditions(settings, 0).observe(parse(gate(true, 'allow')))).toMatchObject({ condition: 'destructive_attempt' });
  });

  it('destructive_attempt only when the experiment lists it', () => {
    expect(new AbortConditions({ ...settings, destructive_attempt: false }, 0).observe(parse(gate(true)))).toBeNull();
  });

  it('cost_usd_above: the summed model cost exceeds the ceiling, not when it equals it', () => {
    const c = new AbortConditions(settings, 0);
    expect(c.observe(parse(llm(1.5)))).toBeNull();
    expect(c.observe(parse(llm(0.5)))).toBeNull();
    expect(c.observe(parse(llm(0.01)))).toMatchObject({ condition: 'cost_usd_above', detail: expect.stringContaining('$2.0100') });
  });

  it('wall_clock_s_above: the agent has run longer than the limit', () => {
    const c = new AbortConditions({ ...settings, wall_clock_s_above: 10 }, 1000);
    expect(c.checkClock(11_000)).toBeNull();
    expect(c.checkClock(11_001)).toMatchObject({ condition: 'wall_clock_s_above' });
    expect(new AbortConditions({ ...settings, wall_clock_s_above: null }, 0).checkClock(1e12)).toBeNull();
  });
});

describe('the abort monitor', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  const eventsFile = () => {
    const dir = mkdtempSync(join(tmpdir(), 'intutic-mon-'));
    dirs.push(dir);
    const path = join(dir, 'events.jsonl');
    writeFileSync(path, '');
    return path;
  };

  it('notices an appended event within a poll interval and records the abort in the events file', async () => {
    const path = eventsFile();
    let fired: { at: number; trigger: MonitorTrigger } | null = null;
    const monitor = new AbortMonitor({ eventsPath: path, settings, runId: 'r-f1', agentStartedAt: Date.now(), onTrigger: (trigger) => (fired = { at: Date.now(), trigger }) });
    monitor.start();
    appendFileSync(path, formatEvent(llm(0.1)) + formatEvent(gate(false)));
    await new Promise((r) => setTimeout(r, POLL_MS * 2));
    expect(fired).toBeNull();
    const writtenAt = Date.now();
    appendFileSync(path, formatEvent(gate(true, 'block')));
    await expect.poll(() => fired, { timeout: 2000, interval: 20 }).not.toBeNull();
    // The spec asks for at least one read a second.
    expect(fired!.at - writtenAt).toBeLessThan(1000);
    expect(await monitor.stop()).toMatchObject({ kind: 'abort', abort: { condition: 'destructive_attempt' } });
    await expect.poll(() => readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l).type).at(-1)).toBe('abort');
    const abort = JSON.parse(readFileSync(path, 'utf8').trim().split('\n').at(-1)!);
    expect(abort).toMatchObject({ type: 'abort', source: 'runner', run_id: 'r-f1', condition: 'destructive_attempt' });
  });

  it('fires wall_clock_s_above on time, without any event', async () => {
    const path = eventsFile();
    let firedAt = 0;
    const started = Date.now();
    const monitor = new AbortMonitor({ eventsPath: path, settings: { ...settings, wall_clock_s_above: 0.5 }, runId: 'r', agentStartedAt: started, onTrigger: () => (firedAt = Date.now()) });
    monitor.start();
    await expect.poll(() => firedAt, { timeout: 3000, interval: 20 }).toBeGreaterThan(0);
    expect(firedAt - started).toBeGreaterThanOrEqual(500);
    expect(firedAt - started).toBeLessThan(1500);
    await monitor.stop();
  });

  it('stops the agent when the run is cancelled, without writing an abort event', async () => {
    const path = eventsFile();
    let reason: string | null = null;
    let trigger: MonitorTrigger | null = null;
    const monitor = new AbortMonitor({ eventsPath: path, settings, runId: 'r', agentStartedAt: Date.now(), cancelReason: async () => reason, onTrigger: (t) => (trigger = t) });
    monitor.start();
    await new Promise((r) => setTimeout(r, 300));
    reason = 'cancelled by the user';
    await expect.poll(() => trigger, { timeout: 3000, interval: 50 }).toEqual({ kind: 'cancel', reason: 'cancelled by the user' });
    await monitor.stop();
    expect(readFileSync(path, 'utf8')).toBe('');
  });
});
