// A suite in the history and `chaos suite --compare`: cells keyed by suite, experiment and profile;
// the comparison uses compareRuns' noise tests per cell. The case to catch: an agent upgrade that made
// one fault worse while every other cell stayed within noise.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fixtureSuite } from '@intutic/report/testing';
import { compareSuites, entriesOfSuite, findSuite, listRuns, recordSuite, renderSuiteComparison, suiteSnapshotOfReport } from '../src/index.ts';

const homes: string[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
});
const home = () => {
  const dir = mkdtempSync(join(tmpdir(), 'intutic-suite-history-'));
  homes.push(dir);
  return dir;
};

const lastWeek = () =>
  fixtureSuite({ id: 'suite-20250301-aaa111', repetitions: 10, cells: { 'mcp-timeout': { 'gemini-cli': { status: 'skipped', reason: 'cost ceiling' } } } });
// codex was upgraded: it now fails registry-down in 8 of 10 repetitions; every other cell as before.
const thisWeek = () =>
  fixtureSuite({
    id: 'suite-20250308-bbb222',
    repetitions: 10,
    cells: { 'registry-down': { codex: { passes: 2 } }, 'flaky-tests': { 'claude-code': { passes: 9 } } },
  });

describe('suite history', () => {
  it('writes one entry per done cell, keyed by suite id, experiment and profile', () => {
    const entries = entriesOfSuite(lastWeek(), new Date('2025-03-01T12:00:00Z'));
    expect(entries).toHaveLength(8); // 9 cells, one skipped
    expect(entries.map((e) => `${e.suite!.id} ${e.experiment} ${e.suite!.profile}`)).toContain('suite-20250301-aaa111 registry-down codex');
  });

  it('reads a recorded suite back by id or prefix, and compares the same as from the report', async () => {
    const h = home();
    await recordSuite(lastWeek(), { home: h });
    expect((await listRuns({ home: h })).length).toBe(8);
    const earlier = await findSuite('suite-20250301', { home: h });
    expect(earlier).toMatchObject({ id: 'suite-20250301-aaa111', from: 'history' });
    expect(earlier!.cells.size).toBe(8);
    const fromHistory = compareSuites(earlier!, suiteSnapshotOfReport(thisWeek()));
    const fromReport = compareSuites(suiteSnapshotOfReport(lastWeek()), suiteSnapshotOfReport(thisWeek()));
    const brief = (c: typeof fromReport) => c.cells.filter((x) => x.change !== 'only now').map((x) => [x.experiment, x.profile, x.change]);
    expect(brief(fromHistory)).toEqual(brief(fromReport));
    expect(await findSuite('suite-2099', { home: h })).toBeNull();
  });

  it('an ambiguous suite prefix is a usage error naming the candidates', async () => {
    const h = home();
    await recordSuite(lastWeek(), { home: h });
    await recordSuite(thisWeek(), { home: h });
    await expect(findSuite('suite-2025', { home: h })).rejects.toMatchObject({ code: 'E_USAGE' });
  });
});

describe('compareSuites', () => {
  it('catches the agent upgrade that made one fault worse, and nothing else', () => {
    const c = compareSuites(suiteSnapshotOfReport(lastWeek()), suiteSnapshotOfReport(thisWeek()));
    const changed = c.cells.filter((x) => x.change !== 'within noise');
    expect(changed.map((x) => [x.experiment, x.profile, x.change])).toEqual([
      ['registry-down', 'codex', 'worse'],
      ['mcp-timeout', 'gemini-cli', 'only now'],
    ]);
    // 9 of 10 against 10 of 10 on claude-code × flaky-tests is noise.
    expect(c.cells.find((x) => x.experiment === 'flaky-tests' && x.profile === 'claude-code')!.change).toBe('within noise');
    const text = renderSuiteComparison(c);
    expect(text).toMatch(
      /WORSE beyond noise \(1\):\n {2}registry-down × codex: score -\d+(\.\d)? \(the 95% intervals do not overlap\); failure_surfaced -80 pp \(p=0\.001\)/,
    );
    expect(text).toContain('skipped earlier: cost ceiling');
  });

  it('says no cell changed when the suites agree', () => {
    const text = renderSuiteComparison(compareSuites(suiteSnapshotOfReport(thisWeek()), suiteSnapshotOfReport(thisWeek())));
    expect(text).toContain('No cell changed beyond noise (9 within noise).');
  });
});
