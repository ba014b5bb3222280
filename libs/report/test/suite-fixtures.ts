// Hand-built suite reports for the suite renderers and the suite history: each done cell is a real
// fixture run report (fixtureReport), so cell scores and intervals are computed as a run computes them.
import { suiteReportSchema, type SuiteCell, type SuiteReport } from '../src/index.ts';
import { fixtureReport, type RepSpec } from './render-fixtures.ts';

export const SUITE_PROFILES = [
  { id: 'claude-code', agent: 'claude-code', model: 'claude-sonnet-4-5', image: 'intutic/agent-sandbox:0.1.0' },
  { id: 'codex', agent: 'codex', model: 'gpt-5', image: 'intutic/agent-sandbox:0.1.0-codex' },
  { id: 'gemini-cli', agent: 'gemini-cli', model: 'gemini-2.5-pro', image: 'intutic/agent-sandbox:0.1.0-gemini' },
];

export const SUITE_EXPERIMENTS = [
  { name: 'registry-down', file: 'examples/registry-down.yaml', fault: 'egress.dns_fail on *.registry.test' },
  { name: 'flaky-tests', file: 'examples/flaky-tests.yaml', fault: 'exec.flaky on npm test' },
  { name: 'mcp-timeout', file: 'examples/mcp-timeout.yaml', fault: 'mcp.timeout on github' },
];

/** passes of repetitions passing every probe; the rest fail failure_surfaced and no_destructive_attempt. */
export function reps(passes: number, of: number): RepSpec[] {
  return Array.from({ length: of }, (_, i) =>
    i < passes
      ? { probes: { failure_surfaced: true, no_destructive_attempt: true, cost_multiplier_below: true, task_success: true }, cost_usd: 0.12 }
      : { probes: { failure_surfaced: false, no_destructive_attempt: false, cost_multiplier_below: true, task_success: false }, cost_usd: 0.3 },
  );
}

export type CellSpec = { passes: number } | { status: 'skipped' | 'error'; reason: string };

export interface SuiteSpec {
  id?: string;
  /** experiment name -> profile id -> cell; a missing cell passes every repetition. */
  cells?: Record<string, Record<string, CellSpec>>;
  repetitions?: number;
  dir?: string;
  profiles?: SuiteReport['profiles'];
  experiments?: SuiteReport['experiments'];
  stoppedReason?: string | null;
}

export function fixtureSuite(spec: SuiteSpec = {}): SuiteReport {
  const id = spec.id ?? 'suite-20250301-aaa111';
  const n = spec.repetitions ?? 5;
  const dir = spec.dir ?? '/tmp/intutic-chaos/suites';
  const profiles = spec.profiles ?? SUITE_PROFILES;
  const experiments = spec.experiments ?? SUITE_EXPERIMENTS;
  const cells: SuiteCell[] = [];
  for (const e of experiments) {
    for (const p of profiles) {
      const c = spec.cells?.[e.name]?.[p.id] ?? { passes: n };
      if ('status' in c) {
        cells.push({ experiment: e.name, profile: p.id, status: c.status, run_id: null, reason: c.reason, report: null });
        continue;
      }
      const runId = `run-${id.slice(-6)}-${e.name}-${p.id}`;
      const report = fixtureReport({
        name: e.name,
        runId,
        faulted: reps(c.passes, n),
        sandboxImage: p.image,
        reportPath: `${dir}/${id}/${e.name}/${p.id}.json`,
      });
      cells.push({ experiment: e.name, profile: p.id, status: 'done', run_id: runId, reason: null, report });
    }
  }
  const cost = cells.reduce((s, c) => s + (c.report?.repetitions.reduce((t, r) => t + r.cost_usd, 0) ?? 0), 0);
  return suiteReportSchema.parse({
    schema_version: 1,
    generator: { name: 'intutic', version: '0.1.0' },
    suite: {
      id,
      name: 'shipped examples',
      file: 'examples/suite.yaml',
      created_at: '2025-03-01T10:00:00.000Z',
      finished_at: '2025-03-01T11:00:00.000Z',
      repetitions: n,
      cost_ceiling_usd: 20,
      stopped_reason: spec.stoppedReason ?? null,
    },
    profiles,
    experiments,
    cells,
    cost_usd: cost,
    report_path: `${dir}/${id}.json`,
  });
}
