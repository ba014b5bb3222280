import { appendFileSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findRun, historyPath, listRuns, readHistory, recordRun, renderHistoryTable } from '../src/index.ts';
import { fixtureReport } from '@intutic/report/testing';
import { scratchDir } from '@intutic/testkit';

let home = '';
beforeEach(() => {
  home = join(scratchDir('intutic-history-'), 'nested', '.intutic');
});
afterEach(() => rmSync(join(home, '..', '..'), { recursive: true, force: true }));

const PROBES = [{ id: 'task_success' as const, weight: 1 }];

function finishedAt(runId: string, name: string, finished: string, passed: boolean) {
  const report = fixtureReport({ runId, name, probes: PROBES, faulted: [{ probes: { task_success: passed } }] });
  report.run.finished_at = finished;
  return report;
}

describe('the run history', () => {
  it('records what a finished run was, one JSON line each, creating the home directory', async () => {
    const report = finishedAt('run-1', 'registry-down', '2025-03-01T10:12:00.000Z', true);
    const entry = await recordRun(report, { home, now: new Date('2025-03-01T10:12:01.000Z') });
    expect(entry).toMatchObject({
      v: 1,
      run_id: 'run-1',
      experiment: 'registry-down',
      report_path: report.report_path,
      commit: report.run.commit,
      sandbox_image: 'my-agent-sandbox',
      verdict: 'scored',
      score: 100,
      faults: ['egress.dns_fail'],
      probes: [{ id: 'task_success', weight: 1, value: null, passed: 1, evaluated: 1 }],
      finished_at: '2025-03-01T10:12:00.000Z',
      recorded_at: '2025-03-01T10:12:01.000Z',
    });
    const lines = readFileSync(historyPath(home), 'utf8').split('\n');
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[0]!)).toEqual(entry);
  });

  it('lists runs newest first, filters by experiment, and finds a run by id or unique prefix', async () => {
    await recordRun(finishedAt('run-20250301-aaa', 'registry-down', '2025-03-01T10:00:00Z', true), { home });
    await recordRun(finishedAt('run-20250303-bbb', 'registry-down', '2025-03-03T10:00:00Z', false), { home });
    await recordRun(finishedAt('run-20250302-ccc', 'credential-revoked', '2025-03-02T10:00:00Z', true), { home });
    expect((await listRuns({ home })).map((r) => r.run_id)).toEqual(['run-20250303-bbb', 'run-20250302-ccc', 'run-20250301-aaa']);
    expect((await listRuns({ home, experiment: 'registry-down' })).map((r) => r.run_id)).toEqual(['run-20250303-bbb', 'run-20250301-aaa']);
    expect((await findRun('run-20250302-ccc', { home }))?.experiment).toBe('credential-revoked');
    expect((await findRun('run-20250301', { home }))?.run_id).toBe('run-20250301-aaa');
    expect(await findRun('run-1999', { home })).toBeNull();
    await expect(findRun('run-2025', { home })).rejects.toMatchObject({ code: 'E_USAGE', message: 'run-2025 matches 3 runs in the history' });
  });

  it('lists a run recorded twice once, as last recorded', async () => {
    await recordRun(finishedAt('run-1', 'registry-down', '2025-03-01T10:00:00Z', false), { home });
    await recordRun(finishedAt('run-2', 'registry-down', '2025-03-02T10:00:00Z', true), { home });
    await recordRun(finishedAt('run-1', 'registry-down', '2025-03-01T10:00:00Z', true), { home });
    const runs = await listRuns({ home });
    expect(runs.map((r) => [r.run_id, r.score])).toEqual([
      ['run-2', 100],
      ['run-1', 100],
    ]);
    expect((await findRun('run-1', { home }))?.score).toBe(100);
  });

  it('skips and counts torn or foreign lines, and ignores a last line still being written', async () => {
    await recordRun(finishedAt('run-1', 'registry-down', '2025-03-01T10:00:00Z', true), { home });
    appendFileSync(historyPath(home), '{"v":1,"run_id":"half\n{"not":"an entry"}\n');
    await recordRun(finishedAt('run-2', 'registry-down', '2025-03-02T10:00:00Z', true), { home });
    appendFileSync(historyPath(home), '{"v":1,"run_id":"in-flight"');
    const contents = await readHistory({ home });
    expect(contents.entries.map((e) => e.run_id)).toEqual(['run-1', 'run-2']);
    expect(contents.malformed).toBe(2);
  });

  it('is empty, not an error, before the first run', async () => {
    expect(await readHistory({ home })).toEqual({ entries: [], malformed: 0, path: historyPath(home) });
    expect(await listRuns({ home })).toEqual([]);
  });

  it('prints a table a person can scan', async () => {
    await recordRun(finishedAt('run-1', 'registry-down', '2025-03-01T10:12:00.000Z', true), { home });
    const [header, row] = renderHistoryTable(await listRuns({ home })).split('\n');
    expect(header).toMatch(/^finished\s+run\s+experiment\s+verdict\s+score\s+commit\s+image\s+report$/);
    expect(row).toMatch(
      /^2025-03-01 10:12:00Z\s+run-1\s+registry-down\s+scored\s+100\s+0123456789ab\s+my-agent-sandbox\s+\/tmp\/intutic-chaos\/registry-down-run-1\.json$/,
    );
  });
});
