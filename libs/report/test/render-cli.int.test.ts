// `intutic chaos report` as a user runs it (the built bin): every rendering written from a report
// file, the timeline read from the artifacts beside it, and clear errors for a file that is not one.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runBuiltCli, scratchDir } from '@intutic/testkit';
import { eventLine, fixtureReport } from './render-fixtures.ts';

let dir = '';
beforeAll(() => {
  dir = scratchDir('intutic-report-cli-');
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: REPO_ROOT, stdio: 'inherit' });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function reportFile(name: string, withArtifacts: boolean): string {
  const path = join(dir, `${name}.json`);
  const report = fixtureReport({
    reportPath: path,
    probes: [{ id: 'failure_surfaced', weight: 1 }],
    faulted: [{ probes: { failure_surfaced: false }, stdout_contains_canary: false }],
  });
  if (withArtifacts) {
    for (const rep of report.repetitions) {
      mkdirSync(rep.artifacts.dir, { recursive: true });
      writeFileSync(
        rep.artifacts.events,
        eventLine(1_000, { type: 'fault_injected', source: 'proxy', fault_index: 0, fault_id: 'egress.dns_fail', target: `host-of-${rep.kind}` }) + '\n',
      );
    }
  }
  writeFileSync(path, JSON.stringify(report, null, 2));
  return path;
}

describe('intutic chaos report', () => {
  it('writes the HTML page, JUnit XML and Markdown summary it is asked for', async () => {
    const report = reportFile('full', true);
    const run = await runBuiltCli(['chaos', 'report', report, '--html', 'out/page.html', '--junit', 'out/junit.xml', '--summary-md', 'out/summary.md'], {
      cwd: dir,
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      [`wrote junit: ${join(dir, 'out/junit.xml')}`, `wrote summary-md: ${join(dir, 'out/summary.md')}`, `wrote html: ${join(dir, 'out/page.html')}`, ''].join(
        '\n',
      ),
    );
    expect(readFileSync(join(dir, 'out/page.html'), 'utf8')).toContain('fault #0 egress.dns_fail → host-of-faulted');
    expect(readFileSync(join(dir, 'out/junit.xml'), 'utf8')).toContain('<testcase name="rep-1.failure_surfaced"');
    expect(readFileSync(join(dir, 'out/summary.md'), 'utf8')).toContain('**Score: 0**');
    expect(readdirSync(join(dir, 'out')).sort()).toEqual(['junit.xml', 'page.html', 'summary.md']);
  });

  it('still writes the page when the artifacts are gone, and says so on it', async () => {
    const report = reportFile('bare', false);
    const run = await runBuiltCli(['chaos', 'report', report, '--html', join(dir, 'bare.html')]);
    expect(run.code).toBe(0);
    const page = readFileSync(join(dir, 'bare.html'), 'utf8');
    expect(page.match(/The events of this repetition are not available: no events file at/g)).toHaveLength(2);
  });

  it('prints the summary when no output is asked for', async () => {
    const run = await runBuiltCli(['chaos', 'report', reportFile('plain', false)], { env: { ...process.env, NO_COLOR: '1' } });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('verdict: scored — every repetition ran');
  });

  it('rejects a file that is not a report with E_REPORT_INVALID and a clear message, writing nothing', async () => {
    const notJson = join(dir, 'not.json');
    writeFileSync(notJson, 'this is { not json');
    const wrongShape = join(dir, 'shape.json');
    writeFileSync(wrongShape, JSON.stringify({ schema_version: 1, verdict: 'great' }));
    const oldVersion = join(dir, 'old.json');
    writeFileSync(oldVersion, JSON.stringify({ schema_version: 0 }));
    for (const [file, message] of [
      [notJson, `error[E_REPORT_INVALID]: ${notJson} is not JSON`],
      [wrongShape, `error[E_REPORT_INVALID]: ${wrongShape} is not a valid intutic report`],
      [oldVersion, `error[E_REPORT_INVALID]: ${oldVersion} has schema_version 0; this intutic reads version 1`],
    ] as const) {
      const run = await runBuiltCli(['chaos', 'report', file, '--html', join(dir, 'never.html')]);
      expect(run.code).toBe(3);
      expect(run.stderr).toContain(message);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
    expect(existsSync(join(dir, 'never.html'))).toBe(false);
    const missing = await runBuiltCli(['chaos', 'report', join(dir, 'nope.json')]);
    expect([missing.code, missing.stderr]).toEqual([3, expect.stringContaining('error[E_FILE_NOT_FOUND]: cannot read the report')]);
  });
});
