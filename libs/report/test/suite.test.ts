// The suite matrix views (issue 37): built from suites whose cells are fixture run reports, so every
// score and interval is the one the cell's own report carries.
import { describe, expect, it } from 'vitest';
import {
  cellKey,
  renderSuiteHtml,
  renderSuiteJson,
  renderSuiteJUnit,
  renderSuiteMarkdown,
  suiteMatrix,
  suiteReportSchema,
  MARKDOWN_WIDTH,
} from '../src/index.ts';
import { fixtureSuite } from './suite-fixtures.ts';

const mixed = () =>
  fixtureSuite({
    repetitions: 10,
    cells: {
      'registry-down': { codex: { passes: 0 } },
      'flaky-tests': { 'gemini-cli': { status: 'skipped', reason: 'the suite cost ceiling of $20 was reached' } },
      'mcp-timeout': { codex: { status: 'error', reason: 'worker lost: the job stalled twice' } },
    },
  });

describe('suiteMatrix', () => {
  it('gives each cell its own report’s score, interval, verdict, cost and a link relative to the suite report', () => {
    const suite = mixed();
    const m = suiteMatrix(suite);
    const cell = m.cells.get(cellKey('registry-down', 'codex'))!;
    const own = suite.cells.find((c) => c.experiment === 'registry-down' && c.profile === 'codex')!.report!;
    expect(cell).toMatchObject({
      status: 'done',
      score: own.score,
      interval: own.score_interval,
      verdict: 'scored',
      link: 'suite-20250301-aaa111/registry-down/codex.json',
    });
    expect(cell.cost_usd).toBeCloseTo(own.repetitions.reduce((s, r) => s + r.cost_usd, 0));
    expect(m.cells.get(cellKey('flaky-tests', 'gemini-cli'))).toMatchObject({
      status: 'skipped',
      score: null,
      link: null,
      note: 'the suite cost ceiling of $20 was reached',
    });
    expect(m.cells.get(cellKey('mcp-timeout', 'codex'))).toMatchObject({ status: 'error', note: 'worker lost: the job stalled twice' });
  });

  it('pools a profile over its scored cells and flags only differences beyond noise', () => {
    const suite = mixed();
    const m = suiteMatrix(suite);
    const own = (e: string) => suite.cells.find((c) => c.experiment === e && c.profile === 'codex')!.report!.score!;
    const codex = m.overall.find((o) => o.profile === 'codex')!;
    // codex scored registry-down (only cost_multiplier_below passed) and flaky-tests (100); mcp-timeout errored.
    expect(codex).toMatchObject({ scored_cells: 2, cells: 3 });
    expect(codex.score).toBeCloseTo((own('registry-down') + own('flaky-tests')) / 2);
    // Overall pairs use the experiments both scored: gemini-cli and codex share only registry-down.
    expect(m.differences.filter((d) => d.experiment === null).map((d) => [d.a, d.b, Math.round(d.delta)])).toEqual([
      ['claude-code', 'codex', -39],
      ['codex', 'gemini-cli', 78],
    ]);
    const perCell = m.differences.filter((d) => d.experiment !== null);
    expect(perCell.map((d) => [d.experiment, d.a, d.b, d.better])).toEqual([
      ['registry-down', 'claude-code', 'codex', 'claude-code'],
      ['registry-down', 'codex', 'gemini-cli', 'gemini-cli'],
    ]);
    // Every other pair of cells scored 100 on both sides: no difference reported.
    expect(m.differences.filter((d) => d.experiment !== null && d.experiment !== 'registry-down')).toEqual([]);
  });

  it('does not call a difference of 5 repetitions beyond noise when the intervals overlap', () => {
    const m = suiteMatrix(fixtureSuite({ repetitions: 5, cells: { 'registry-down': { codex: { passes: 3 } } } }));
    expect(m.differences).toEqual([]);
  });
});

describe('renderSuiteMarkdown', () => {
  it('shows every cell, why a cell has no score, the differences, and links each cell’s report', () => {
    const md = renderSuiteMarkdown(mixed());
    expect(md).toContain('| registry-down | 100 [72–100] | 22 [16–44]   | 100 [72–100] |');
    expect(md).toContain('| flaky-tests   | 100 [72–100] | 100 [72–100] | skipped      |');
    expect(md).toContain('gemini-cli: skipped: the suite cost ceiling of \\$20 was reached');
    expect(md).toContain('codex: error: worker lost: the job stalled twice');
    expect(md).toContain('[report](suite-20250301-aaa111/registry-down/codex.json)');
    expect(md).toContain('- claude-code beats codex by 78 points on registry-down');
  });

  it('nests each cell under its experiment in the list of cells', () => {
    const cells = renderSuiteMarkdown(mixed()).split('## Cells')[1]!.split('## Profiles')[0]!;
    const items = cells.split('\n').filter((line) => /^ *- /.test(line));
    expect(items[0]).toMatch(/^- \*\*registry-down\*\*/);
    expect(items.slice(1, 4).map((line) => /^ {2}- (\S+):/.exec(line)?.[1])).toEqual(['claude-code', 'codex', 'gemini-cli']);
  });

  it('keeps every line within 120 columns, splitting many profiles over several tables', () => {
    const profiles = Array.from({ length: 9 }, (_, i) => ({ id: `profile-with-a-long-name-${i}/model-x`, agent: 'command', model: null, image: 'img' }));
    const experiments = [{ name: 'an-experiment-whose-name-is-much-longer-than-the-column-allows-for', file: 'e.yaml', fault: 'egress.dns_fail' }];
    const md = renderSuiteMarkdown(fixtureSuite({ profiles, experiments, repetitions: 3 }));
    // A link's path cannot be broken; it stands alone on its line. Everything else fits.
    const long = md.split('\n').filter((l) => [...l].length > MARKDOWN_WIDTH && !/^ *\[report\]\([^ ]+\)$/.test(l));
    expect(long).toEqual([]);
    const headers = md.split('\n').filter((l) => l.startsWith('| experiment'));
    expect(headers.length).toBeGreaterThan(1);
    // Every profile still has its column somewhere.
    for (const p of profiles) expect(headers.join('\n')).toContain(p.id.slice(0, 20));
  });

  it('escapes agent-controlled text', () => {
    const md = renderSuiteMarkdown(fixtureSuite({ cells: { 'flaky-tests': { codex: { status: 'error', reason: 'boom | <img src=x> [x](javascript:1)' } } } }));
    expect(md).toContain('boom \\| \\<img src=x\\> \\[x\\](javascript:1)');
  });
});

describe('renderSuiteJson', () => {
  it('round-trips through the suite report schema', () => {
    const suite = mixed();
    expect(suiteReportSchema.parse(JSON.parse(renderSuiteJson(suite)))).toEqual(suite);
  });
});

describe('renderSuiteJUnit', () => {
  it('has one testsuite per profile and one testcase per experiment, with skipped and error cells', () => {
    const xml = renderSuiteJUnit(mixed());
    expect(xml.match(/<testsuite /g)).toHaveLength(3);
    expect(xml).toMatch(/<testsuite name="codex" tests="3" failures="0" errors="1" skipped="0"/);
    expect(xml).toMatch(/<testsuite name="gemini-cli" tests="3" failures="0" errors="0" skipped="1"/);
    expect(xml).toContain('<skipped message="skipped: the suite cost ceiling of $20 was reached"/>');
  });

  it('fails a cell whose run was aborted', () => {
    const suite = fixtureSuite();
    const cell = suite.cells[0]!;
    cell.report = { ...cell.report!, verdict: 'aborted', verdict_reason: 'destructive attempt: rm -rf /' };
    const xml = renderSuiteJUnit(suite);
    expect(xml).toMatch(/<testsuite name="claude-code" tests="3" failures="1"/);
    expect(xml).toContain('type="verdict_aborted"');
  });
});

describe('renderSuiteHtml', () => {
  it('is one self-contained page, escaped, with a relative link per cell', () => {
    const html = renderSuiteHtml(fixtureSuite({ cells: { 'flaky-tests': { codex: { status: 'error', reason: '<script>alert(1)</script>' } } } }));
    expect(html).toContain("default-src 'none'");
    expect(html).not.toMatch(/<script|src="http|href="http/);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('href="suite-20250301-aaa111/registry-down/claude-code.json"');
    expect(html.match(/<td class="cell /g)).toHaveLength(9);
  });
});
