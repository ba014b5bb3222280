import { describe, expect, it } from 'vitest';
import { emptyFacts } from '@intutic/scoring';
import type { ChaosEvent } from '@intutic/events';
import { escapeMarkdown, offsetText, renderHtml, renderJUnit, renderMarkdownSummary, repetitionKey, timelineOf, type RepetitionEvents } from '../src/index.ts';
import { fixtureReport } from './render-fixtures.ts';

const TWO_PROBES = [
  { id: 'failure_surfaced' as const, weight: 3 },
  { id: 'task_success' as const, weight: 1 },
];

/** failure_surfaced 2 of 3, task_success 3 of 3: score (3·2/3 + 1·1) / 4 · 100 = 75. */
function mixedReport() {
  return fixtureReport({
    probes: TWO_PROBES,
    faulted: [
      { probes: { failure_surfaced: true, task_success: true } },
      { probes: { failure_surfaced: false, task_success: true }, stdout_contains_canary: false, cost_usd: 0.35, cost_multiplier: 3.5 },
      { probes: { failure_surfaced: true, task_success: true } },
    ],
    warnings: ['fault #0 egress.dns_fail: no injecting component reported plan_loaded in faulted repetition 2'],
  });
}

const testcases = (xml: string) =>
  [...xml.matchAll(/<testcase name="([^"]+)"[^>]*?(\/>|>([\s\S]*?)<\/testcase>)/g)].map((m) => ({ name: m[1]!, body: m[3] ?? '' }));
const attr = (xml: string, element: string, name: string) => xml.match(new RegExp(`<${element} [^>]*\\b${name}="([^"]*)"`))?.[1];

describe('renderJUnit', () => {
  it('has a testcase per probe per faulted repetition, and the failure carries the evidence', () => {
    const xml = renderJUnit(mixedReport());
    const cases = testcases(xml);
    expect(cases.map((c) => c.name)).toEqual([
      'run.verdict',
      'rep-1.failure_surfaced',
      'rep-1.task_success',
      'rep-2.failure_surfaced',
      'rep-2.task_success',
      'rep-3.failure_surfaced',
      'rep-3.task_success',
    ]);
    const failed = cases.find((c) => c.name === 'rep-2.failure_surfaced')!;
    expect(failed.body).toContain('<failure message="failure_surfaced failed: the agent&apos;s stdout does not contain the canary E-INTUTIC-000000a2');
    expect(failed.body).toContain('type="probe_failed"');
    expect(failed.body).toContain('run id: run-20250301-abc123-f2');
    expect(failed.body).toContain('cost: $0.3500 (3.50× baseline)');
    expect(failed.body).toContain('events: /tmp/intutic-chaos/registry-down-run-20250301-abc123.artifacts/faulted-2/events.jsonl');
    expect(cases.find((c) => c.name === 'rep-1.failure_surfaced')!.body).toBe('');
    expect(attr(xml, 'testsuite', 'tests')).toBe('7');
    expect(attr(xml, 'testsuite', 'failures')).toBe('1');
    expect(attr(xml, 'testsuite', 'errors')).toBe('0');
    expect(attr(xml, 'testsuite', 'skipped')).toBe('0');
    expect(attr(xml, 'testsuite', 'name')).toBe('registry-down');
    expect(xml).toContain('<property name="score" value="75"/>');
  });

  it('skips what was not evaluated with the reason, and makes a runner error an error, an abort a failed verdict', () => {
    const report = fixtureReport({
      probes: TWO_PROBES,
      verdict: 'aborted',
      verdictReason: 'the run was stopped by abort condition cost_usd_above in faulted repetition 2',
      faulted: [
        { probes: { failure_surfaced: null, task_success: true }, injections: 0 },
        { probes: { failure_surfaced: true, task_success: null }, verify_exit_code: null, abort: { condition: 'cost_usd_above', detail: 'spent $2.10 > $2' } },
      ],
      skipped: [{ index: 3, kind: 'faulted', reason: 'the run was aborted' }],
    });
    report.repetitions.push({
      ...report.repetitions[3]!,
      index: 4,
      status: 'failed',
      error: 'the proxy exited (code 1)',
      probes: { failure_surfaced: null, task_success: null },
    });
    const xml = renderJUnit(report);
    const byName = new Map(testcases(xml).map((c) => [c.name, c.body]));
    expect(byName.get('run.verdict')).toContain('<failure message="aborted: the run was stopped by abort condition cost_usd_above');
    expect(byName.get('run.verdict')).toContain('type="verdict_aborted"');
    expect(byName.get('rep-1.failure_surfaced')).toContain('<skipped message="not evaluated: no fault fired in this repetition"/>');
    expect(byName.get('rep-2.task_success')).toContain('<skipped message="not evaluated: verify was skipped: the repetition was aborted (cost_usd_above)"/>');
    expect(byName.get('rep-3.task_success')).toContain('<skipped message="faulted repetition 3 did not run: the run was aborted"/>');
    expect(byName.get('rep-4.task_success')).toMatch(
      /<error message="the repetition failed: the proxy exited \(code 1\)" type="runner_error">[\s\S]*error: the proxy exited/,
    );
    expect(attr(xml, 'testsuite', 'failures')).toBe('1');
    expect(attr(xml, 'testsuite', 'errors')).toBe('2');
    expect(attr(xml, 'testsuite', 'skipped')).toBe('4');
    expect(attr(xml, 'testsuite', 'tests')).toBe('9');
  });

  it('adds a min_pass_rate testcase that fails below the threshold and is skipped while inconclusive', () => {
    const report = fixtureReport({
      probes: [
        { id: 'failure_surfaced', weight: 3, min_pass_rate: 0.9 },
        { id: 'task_success', weight: 1, min_pass_rate: 0.5 },
      ],
      faulted: Array.from({ length: 10 }, (_, i) => ({ probes: { failure_surfaced: false, task_success: i < 6 } })),
    });
    const byName = new Map(testcases(renderJUnit(report)).map((c) => [c.name, c.body]));
    expect(byName.get('failure_surfaced.min_pass_rate')).toContain('type="below_min_pass_rate"');
    expect(byName.get('failure_surfaced.min_pass_rate')).toContain('0 of 10 passed');
    expect(byName.get('task_success.min_pass_rate')).toMatch(/<skipped message="task_success: inconclusive at min 50%/);
  });

  it('escapes agent text and replaces characters XML forbids', () => {
    const report = fixtureReport({
      probes: TWO_PROBES,
      faulted: [{ probes: { failure_surfaced: true, task_success: false }, verify_exit_code: 1, error: null, abort: null }],
      warnings: ['tool "<rm -rf />" & \u0001 \'quoted\'', 'emoji 😀 kept, lone \uD800 replaced'],
    });
    report.repetitions[1]!.abort = { condition: 'destructive_attempt', detail: '</failure><testcase name="x"/>' };
    const xml = renderJUnit(report);
    expect(xml).toContain('warning: tool &quot;&lt;rm -rf /&gt;&quot; &amp; \uFFFD &apos;quoted&apos;');
    expect(xml).toContain('abort: destructive_attempt: &lt;/failure&gt;&lt;testcase name=&quot;x&quot;/&gt;');
    expect(xml).not.toContain('\u0001');
    expect(xml).toContain('warning: emoji 😀 kept, lone \uFFFD replaced');
    expect(testcases(xml)).toHaveLength(3);
  });

  it('holds one testsuite per experiment when given several reports, and totals them', () => {
    const xml = renderJUnit([
      mixedReport(),
      fixtureReport({ name: 'credential-revoked', probes: TWO_PROBES, faulted: [{ probes: { failure_surfaced: false, task_success: false } }] }),
    ]);
    expect([...xml.matchAll(/<testsuite name="([^"]+)"/g)].map((m) => m[1])).toEqual(['registry-down', 'credential-revoked']);
    expect(attr(xml, 'testsuites', 'tests')).toBe('10');
    expect(attr(xml, 'testsuites', 'failures')).toBe('3');
  });
});

describe('renderMarkdownSummary', () => {
  it('gives the verdict, the score with its interval, the probe table and the warnings', () => {
    const text = renderMarkdownSummary(mixedReport());
    expect(text).toMatch(/^## ✅ intutic chaos: registry-down — scored/);
    // Wilson 95% by hand: 2/3 -> 20.8%–93.9%, 3/3 -> 43.9%–100%; score bounds (3·0.2077 + 0.4385)/4 and (3·0.9385 + 1)/4.
    expect(text).toContain('**Score: 75** (95% interval 26.5–95.4) · verdict **scored** (exit 0): every repetition ran');
    expect(text).toContain('| `failure_surfaced` | 3 | 66.7% | 20.8%–93.9% | 2/3 | 0 | k=1 66.7%, k=2 33.3%, k=3 0% |');
    expect(text).toContain('| `task_success` | 1 | 100% | 43.9%–100% | 3/3 | 0 | k=1 100%, k=2 100%, k=3 100% |');
    expect(text).toContain('### ⚠️ Warnings (1)');
    expect(text).toContain('- fault \\#0 egress.dns\\_fail: no injecting component reported plan\\_loaded in faulted repetition 2');
    expect(text).toContain('| 2 | run-20250301-abc123-f2 | ❌ failure\\_surfaced<br>✅ task\\_success | $0.3500 (3.50×) | 62.0 s |  |');
  });

  it('escapes Markdown and HTML in report text so it renders as itself', () => {
    expect(escapeMarkdown('a | b <img src=x> *x* [l](u) $x$ &amp;\nnext')).toBe('a \\| b \\<img src=x\\> \\*x\\* \\[l\\](u) \\$x\\$ \\&amp; next');
    expect(escapeMarkdown('- item')).toBe('\\- item');
    expect(escapeMarkdown('1. first')).toBe('1\\. first');
    expect(escapeMarkdown('+ plus')).toBe('\\+ plus');
  });

  it('says why a run is invalid and which repetitions did not run', () => {
    const text = renderMarkdownSummary(
      fixtureReport({
        probes: TWO_PROBES,
        verdict: 'invalid',
        verdictReason: 'baseline repetition 1 failed verify (exit 1)',
        faulted: [],
        baseline: [{ verify_exit_code: 1 }],
        skipped: [{ index: 1, kind: 'faulted', reason: 'a baseline failed verify' }],
      }),
    );
    expect(text).toMatch(/^## ⚠️ intutic chaos: registry-down — invalid/);
    expect(text).toContain('**Score: n/a** (95% interval n/a) · verdict **invalid** (exit 2): baseline repetition 1 failed verify (exit 1)');
    expect(text).toContain('- faulted repetition 1 did not run: a baseline failed verify');
  });
});

let ts = 1_740_823_200_000;
const ev = (input: Record<string, unknown>): ChaosEvent => ({ v: 1, ts: (ts += 1500), ...input }) as ChaosEvent;
const llm = (cost: number) =>
  ev({
    type: 'llm_call',
    source: 'proxy',
    provider: 'anthropic',
    endpoint: '/v1/messages',
    model: 'claude-sonnet-4-5',
    status: 200,
    stream: true,
    input_tokens: 1200,
    output_tokens: 80,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    cost_usd: cost,
  });

describe('timelineOf', () => {
  it('orders events by time, keeps file order on ties, and sums model cost as it goes', () => {
    const a = llm(0.01);
    const b = ev({ type: 'fault_injected', source: 'proxy', fault_index: 0, fault_id: 'egress.dns_fail', target: 'registry.test' });
    const c = { ...ev({ type: 'tool_call', source: 'gate', tool: 'Bash', ok: false }), ts: b.ts } as ChaosEvent;
    const d = llm(0.02);
    const entries = timelineOf([d, a, b, c]);
    expect(entries.map((e) => [e.kind, e.offset_ms, e.tone])).toEqual([
      ['model', 0, 'info'],
      ['fault', 1500, 'bad'],
      ['tool', 1500, 'warn'],
      ['model', 4500, 'info'],
    ]);
    expect(entries[1]!.title).toBe('fault #0 egress.dns_fail → registry.test');
    expect(entries[3]!.cumulative_cost_usd).toBeCloseTo(0.03, 10);
    expect(entries[0]!.detail).toContain('1200 in / 80 out tokens');
    expect(offsetText(62_345)).toBe('+1:02.345');
  });
});

describe('renderHtml', () => {
  const report = mixedReport();
  const hostile = '<img src=x onerror=alert(1)>';
  const events = new Map<string, RepetitionEvents>([
    [
      repetitionKey({ kind: 'faulted', index: 1 }),
      {
        status: 'read',
        malformed: 2,
        omitted: 0,
        events: [
          ev({ type: 'plan_loaded', source: 'proxy', faults: [0] }),
          llm(0.0123),
          ev({ type: 'fault_injected', source: 'proxy', fault_index: 0, fault_id: 'egress.dns_fail', target: 'registry.test' }),
          ev({
            type: 'gate_decision',
            source: 'gate',
            tool: hostile,
            decision: 'block',
            rule: 'no-rm',
            mode: 'enforce',
            destructive: true,
            reason: '"quoted" & </span>',
          }),
          ev({ type: 'abort', source: 'runner', condition: 'destructive_attempt', detail: 'rm -rf /' }),
        ],
      },
    ],
    [repetitionKey({ kind: 'faulted', index: 2 }), { status: 'missing', reason: 'no events file at /gone/events.jsonl' }],
  ]);
  const page = renderHtml(report, events);

  it('shows the verdict, score with interval, a row per probe with its Wilson interval', () => {
    expect(page).toContain('<span id="verdict" class="badge scored" data-verdict="scored">scored</span>');
    expect(page).toContain('<span id="score" class="value">75</span>');
    expect(page).toContain('95% interval 26.5–95.4');
    expect(page.match(/<tr class="probe-row" data-probe="(\w+)">/g)).toHaveLength(2);
    expect(page).toMatch(/data-probe="failure_surfaced">[\s\S]*?66\.7%[\s\S]*?20\.8%–93\.9%[\s\S]*?2\/3/);
    expect(page).toContain('fault #0 egress.dns_fail: no injecting component reported plan_loaded in faulted repetition 2');
  });

  it('has a timeline per repetition with faults, decisions, model calls and their cost, and says when events are missing', () => {
    expect(page).toMatch(/<details class="rep" id="timeline-faulted-1" open>/);
    expect(page).toContain('data-kind="fault"');
    expect(page).toContain('fault #0 egress.dns_fail → registry.test');
    expect(page).toContain('model claude-sonnet-4-5 → 200');
    expect(page).toContain('$0.0123');
    expect(page).toContain('abort: destructive_attempt');
    expect(page).toContain('2 malformed event line(s) ignored');
    expect(page).toContain('The events of this repetition are not available: no events file at /gone/events.jsonl');
    expect(page).toMatch(/id="timeline-faulted-3"[\s\S]*?The events of this repetition were not read\./);
  });

  it('escapes every piece of event text and fetches nothing', () => {
    expect(page).not.toContain(hostile);
    expect(page).toContain('gate: &lt;img src=x onerror=alert(1)&gt; → block (destructive)');
    expect(page).toContain('&quot;quoted&quot; &amp; &lt;/span&gt;');
    expect(page).not.toMatch(/<(script|img|link|iframe)\b/i);
    expect(page).not.toMatch(/<[a-z][^>]*\s(src|href)\s*=|url\(|@import/i);
    expect(page).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'`);
  });

  it('renders a run that never reached a faulted repetition', () => {
    const invalid = fixtureReport({ probes: TWO_PROBES, verdict: 'invalid', faulted: [], baseline: [{ verify_exit_code: 1, facts: emptyFacts() }] });
    const html = renderHtml(invalid);
    expect(html).toContain('data-verdict="invalid"');
    expect(html).toContain('<span id="score" class="value">n/a</span>');
    expect(html).toContain('baseline: no probes');
  });
});
