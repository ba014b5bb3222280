import { appendFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatEvent, type EventInput } from '@intutic/events';
import { AbortConditions, AbortMonitor, POLL_MS, systemClock, type MonitorClock, type MonitorTrigger } from '../src/index.ts';
import { scratchDir } from '@intutic/testkit';

const settings = { destructive_attempt: true, cost_usd_above: 2, wall_clock_s_above: 900 };
const llm = (cost: number): EventInput => ({
  type: 'llm_call',
  source: 'proxy',
  provider: 'anthropic',
  endpoint: '/v1/messages',
  model: 'claude',
  status: 200,
  stream: true,
  input_tokens: 1,
  output_tokens: 1,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
  cost_usd: cost,
});
const gate = (destructive: boolean, decision: 'allow' | 'block' = 'allow'): EventInput => ({
  type: 'gate_decision',
  source: 'gate',
  tool: 'Bash',
  decision,
  rule: null,
  mode: null,
  destructive,
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

/**
 * A clock the test moves by hand. Advancing it runs every task that comes due, in time order, and
 * waits for each, so when advance() resolves the monitor has finished the reads that time allowed.
 */
interface ClockTask {
  due: number;
  period: number | null;
  run: () => Promise<void>;
}

class FakeClock implements MonitorClock {
  private at = 1_800_000_000_000;
  private tasks: ClockTask[] = [];
  /** None unless a test lends it the system's. */
  onChange?: MonitorClock['onChange'];

  now(): number {
    return this.at;
  }

  every(ms: number, run: () => Promise<void>): () => void {
    return this.schedule({ due: this.at + ms, period: ms, run });
  }

  after(ms: number, run: () => Promise<void>): () => void {
    return this.schedule({ due: this.at + ms, period: null, run });
  }

  async advance(ms: number): Promise<void> {
    const end = this.at + ms;
    for (let next = this.nextDue(end); next; next = this.nextDue(end)) {
      this.at = next.due;
      if (next.period === null) this.tasks.splice(this.tasks.indexOf(next), 1);
      else next.due += next.period;
      await next.run();
    }
    this.at = end;
  }

  private nextDue(end: number): ClockTask | undefined {
    return this.tasks.filter((t) => t.due <= end).sort((a, b) => a.due - b.due)[0];
  }

  private schedule(task: ClockTask): () => void {
    this.tasks.push(task);
    return () => {
      this.tasks = this.tasks.filter((t) => t !== task);
    };
  }
}

describe('the abort monitor, on a clock the test drives', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  const eventsFile = () => {
    const dir = scratchDir('intutic-mon-');
    dirs.push(dir);
    const path = join(dir, 'events.jsonl');
    writeFileSync(path, '');
    return path;
  };
  const lastEvent = (path: string) => JSON.parse(readFileSync(path, 'utf8').trim().split('\n').at(-1)!);

  it("fires at its first read after a destructive call, within the spec's second, and records the abort", async () => {
    const clock = new FakeClock();
    const path = eventsFile();
    const fired: MonitorTrigger[] = [];
    const monitor = new AbortMonitor({ eventsPath: path, settings, runId: 'r-f1', agentStartedAt: clock.now(), clock, onTrigger: (t) => fired.push(t) });
    monitor.start();
    appendFileSync(path, formatEvent(llm(0.1)) + formatEvent(gate(false)));
    await clock.advance(2 * POLL_MS);
    expect(fired, 'no condition holds yet').toEqual([]);
    appendFileSync(path, formatEvent(gate(true, 'block')));
    expect(fired, 'the monitor has not read the file since').toEqual([]);
    // The spec: the runner reads the events file every second.
    await clock.advance(1000);
    expect(fired).toEqual([{ kind: 'abort', abort: expect.objectContaining({ condition: 'destructive_attempt' }) }]);
    expect(lastEvent(path)).toMatchObject({ type: 'abort', source: 'runner', run_id: 'r-f1', condition: 'destructive_attempt' });
    appendFileSync(path, formatEvent(gate(true)));
    await clock.advance(5 * POLL_MS);
    expect(fired, 'it fires once').toHaveLength(1);
    expect(await monitor.stop()).toMatchObject({ kind: 'abort', abort: { condition: 'destructive_attempt' } });
  });

  it('fires wall_clock_s_above once the agent has run longer than the limit, without any event, not a poll late', async () => {
    const clock = new FakeClock();
    const path = eventsFile();
    const fired: MonitorTrigger[] = [];
    // 0.6 s lies between two polls (0.5 s and 0.75 s): only the timer at the deadline fires it before 0.75 s.
    const monitor = new AbortMonitor({
      eventsPath: path,
      settings: { ...settings, wall_clock_s_above: 0.6 },
      runId: 'r',
      agentStartedAt: clock.now(),
      clock,
      onTrigger: (t) => fired.push(t),
    });
    monitor.start();
    await clock.advance(600);
    expect(fired, 'not at the limit itself').toEqual([]);
    await clock.advance(10);
    expect(fired).toEqual([{ kind: 'abort', abort: expect.objectContaining({ condition: 'wall_clock_s_above' }) }]);
    expect(lastEvent(path)).toMatchObject({ type: 'abort', condition: 'wall_clock_s_above' });
    await monitor.stop();
  });

  it('stops the agent once the run is cancelled, without writing an abort event', async () => {
    const clock = new FakeClock();
    const path = eventsFile();
    let reason: string | null = null;
    const fired: MonitorTrigger[] = [];
    const monitor = new AbortMonitor({
      eventsPath: path,
      settings,
      runId: 'r',
      agentStartedAt: clock.now(),
      clock,
      cancelReason: async () => reason,
      onTrigger: (t) => fired.push(t),
    });
    monitor.start();
    await clock.advance(3000);
    expect(fired, 'not cancelled yet').toEqual([]);
    reason = 'cancelled by the user';
    await clock.advance(1000);
    expect(fired).toEqual([{ kind: 'cancel', reason: 'cancelled by the user' }]);
    await monitor.stop();
    expect(readFileSync(path, 'utf8')).toBe('');
  });

  it('reads the file as soon as it changes, without waiting for a poll', async () => {
    // The poll never comes (time does not move); only the system's watch of the directory can wake it.
    const clock = new FakeClock();
    clock.onChange = systemClock.onChange;
    const path = eventsFile();
    const fired: MonitorTrigger[] = [];
    const monitor = new AbortMonitor({ eventsPath: path, settings, runId: 'r-w', agentStartedAt: clock.now(), clock, onTrigger: (t) => fired.push(t) });
    monitor.start();
    appendFileSync(path, formatEvent(gate(true, 'block')));
    for (let waited = 0; fired.length === 0 && waited < 10_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
    expect(fired).toEqual([{ kind: 'abort', abort: expect.objectContaining({ condition: 'destructive_attempt' }) }]);
    expect(await monitor.stop()).toMatchObject({ kind: 'abort' });
  });

  it('reads nothing once stopped', async () => {
    const clock = new FakeClock();
    const path = eventsFile();
    const fired: MonitorTrigger[] = [];
    const monitor = new AbortMonitor({ eventsPath: path, settings, runId: 'r', agentStartedAt: clock.now(), clock, onTrigger: (t) => fired.push(t) });
    monitor.start();
    await clock.advance(POLL_MS);
    expect(await monitor.stop()).toBeNull();
    appendFileSync(path, formatEvent(gate(true)));
    await clock.advance(5000);
    expect(fired).toEqual([]);
  });
});
