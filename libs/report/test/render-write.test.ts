import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readRepetitionEvents, readTimelines, repetitionKey, writeRenderings } from '../src/index.ts';
import { eventLine, fixtureReport } from './render-fixtures.ts';
import { scratchDir } from '@intutic/testkit';

const dirs: string[] = [];
const tempDir = () => {
  const dir = scratchDir('intutic-render-');
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const llm = (ts: number, cost: number) =>
  eventLine(ts, {
    type: 'llm_call',
    source: 'proxy',
    provider: 'anthropic',
    endpoint: '/v1/messages',
    model: 'claude-haiku-4-5',
    status: 200,
    stream: false,
    input_tokens: 10,
    output_tokens: 5,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    cost_usd: cost,
  });

function reportWithArtifacts(dir: string) {
  const report = fixtureReport({
    reportPath: join(dir, 'run.json'),
    probes: [{ id: 'failure_surfaced', weight: 1 }],
    faulted: [{ probes: { failure_surfaced: true } }],
  });
  const faulted = report.repetitions.find((r) => r.kind === 'faulted')!;
  mkdirSync(faulted.artifacts.dir, { recursive: true });
  writeFileSync(
    faulted.artifacts.events,
    [
      eventLine(1000, { type: 'plan_loaded', source: 'proxy', faults: [0] }),
      llm(2000, 0.004),
      eventLine(3000, { type: 'fault_injected', source: 'proxy', fault_index: 0, fault_id: 'egress.dns_fail', target: 'registry.test' }),
      'not json at all',
      eventLine(4000, { type: 'tool_call', source: 'gate', tool: 'Bash', ok: false }),
    ].join('\n') + '\n',
  );
  return report;
}

describe('writeRenderings', () => {
  it('writes each rendering asked for, atomically, with the timeline read from the artifacts', async () => {
    const dir = tempDir();
    const report = reportWithArtifacts(dir);
    const out = join(dir, 'out');
    writeFileSync(join(dir, 'page.html'), 'old page');
    const written = await writeRenderings(report, { junit: join(out, 'chaos.xml'), summaryMd: join(out, 'summary.md'), html: join(dir, 'page.html') });
    expect(written.map((w) => w.kind)).toEqual(['junit', 'summary-md', 'html']);
    expect(readFileSync(join(out, 'chaos.xml'), 'utf8')).toContain('<testcase name="rep-1.failure_surfaced"');
    expect(readFileSync(join(out, 'summary.md'), 'utf8')).toContain('**Score: 100**');
    const page = readFileSync(join(dir, 'page.html'), 'utf8');
    expect(page).toContain('fault #0 egress.dns_fail → registry.test');
    expect(page).toContain('tool Bash failed');
    expect(page).toContain('1 malformed event line(s) ignored');
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(readdirSync(out).sort()).toEqual(['chaos.xml', 'summary.md']);
  });

  it('finds the artifacts beside a report that was moved with them, and says so when they are gone', async () => {
    const original = tempDir();
    const report = reportWithArtifacts(original);
    // The report says it lives in `original`; a CI download put it and its artifacts elsewhere.
    const moved = tempDir();
    const faulted = report.repetitions.find((r) => r.kind === 'faulted')!;
    mkdirSync(join(moved, 'copy.artifacts', 'faulted-1'), { recursive: true });
    writeFileSync(join(moved, 'copy.artifacts', 'faulted-1', 'events.jsonl'), readFileSync(faulted.artifacts.events));
    const movedReport = {
      ...report,
      repetitions: report.repetitions.map((r) => ({ ...r, artifacts: { ...r.artifacts, events: r.artifacts.events.replace(original, '/no/such/dir') } })),
      artifacts_dir: '/no/such/dir/run.artifacts',
    };
    const timelines = await readTimelines(movedReport, { readFrom: join(moved, 'copy.json') });
    const read = timelines.get(repetitionKey(faulted))!;
    expect(read.status).toBe('read');
    expect(read.status === 'read' && read.events.map((e) => e.type)).toEqual(['plan_loaded', 'llm_call', 'fault_injected', 'tool_call']);

    const baseline = timelines.get(repetitionKey({ kind: 'baseline', index: 1 }))!;
    expect(baseline).toEqual({ status: 'missing', reason: expect.stringContaining('no events file at /no/such/dir/run.artifacts/baseline-1/events.jsonl') });
    const page = join(moved, 'page.html');
    await writeRenderings(movedReport, { html: page }, { readFrom: join(moved, 'missing.json') });
    expect(readFileSync(page, 'utf8')).toContain('The events of this repetition are not available: no events file at');
  });

  it('keeps every fault and abort but caps routine events, saying how many it left out', async () => {
    const dir = tempDir();
    const path = join(dir, 'events.jsonl');
    const lines = Array.from({ length: 10 }, (_, i) => llm(1000 + i, 0.001));
    lines.push(
      eventLine(5000, { type: 'fault_injected', source: 'proxy', fault_index: 0, fault_id: 'llm.rate_limit', target: 'claude-haiku-4-5', retry_after_s: 5 }),
    );
    lines.push(eventLine(6000, { type: 'abort', source: 'runner', condition: 'cost_usd_above', detail: 'over $2' }));
    writeFileSync(path, lines.join('\n') + '\n');
    const read = await readRepetitionEvents([path], 3);
    expect(read.status === 'read' && [read.events.map((e) => e.type), read.omitted]).toEqual([
      ['llm_call', 'llm_call', 'llm_call', 'fault_injected', 'abort'],
      7,
    ]);
  });
});
