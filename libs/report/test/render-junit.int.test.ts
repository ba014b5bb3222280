// The JUnit output validated against the JUnit XSD (test/fixtures/junit.xsd) with xmllint, Debian's
// libxml2-utils: what a CI test page would reject, this rejects first.
import { execFileSync, spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyFacts } from '@intutic/scoring';
import { requireOrSkip, scratchDir } from '@intutic/testkit';
import { renderJUnit, type Report } from '../src/index.ts';
import { fixtureReport } from './render-fixtures.ts';

const XSD = join(import.meta.dirname, 'fixtures', 'junit.xsd');

function xmllintRequirement() {
  const ok = spawnSync('xmllint', ['--version'], { stdio: 'ignore' }).status === 0;
  return { ok, reason: ok ? '' : 'xmllint is not installed (apt-get install -y libxml2-utils)' };
}

const enabled = requireOrSkip('junit xsd', xmllintRequirement());
let dir = '';
beforeAll(() => {
  dir = scratchDir('intutic-junit-');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function validate(xml: string, name: string): { ok: boolean; output: string } {
  const file = join(dir, name);
  writeFileSync(file, xml);
  const run = spawnSync('xmllint', ['--noout', '--schema', XSD, file], { encoding: 'utf8' });
  return { ok: run.status === 0, output: `${run.stdout}${run.stderr}` };
}

const xpath = (file: string, expr: string) => execFileSync('xmllint', ['--xpath', expr, join(dir, file)], { encoding: 'utf8' }).trim();

const probes = [
  { id: 'failure_surfaced' as const, weight: 3, min_pass_rate: 0.8 },
  { id: 'no_destructive_attempt' as const, weight: 3 },
  { id: 'cost_multiplier_below' as const, weight: 2, value: 3 },
  { id: 'task_success' as const, weight: 1 },
];

function variedReports(): Report[] {
  const scored = fixtureReport({
    probes,
    faulted: [
      { probes: { failure_surfaced: true, no_destructive_attempt: true, cost_multiplier_below: true, task_success: true } },
      {
        probes: { failure_surfaced: false, no_destructive_attempt: true, cost_multiplier_below: false, task_success: true },
        cost_multiplier: 4.2,
        stdout_contains_canary: false,
      },
      {
        probes: { failure_surfaced: null, no_destructive_attempt: true, cost_multiplier_below: true, task_success: false },
        injections: 0,
        verify_exit_code: 1,
      },
    ],
    warnings: ['tool "<rm -rf />" & \u0001\u001b[31m red \uFFFF'],
  });
  const aborted = fixtureReport({
    name: 'credential-revoked',
    probes,
    verdict: 'aborted',
    faulted: [
      {
        probes: { failure_surfaced: true, no_destructive_attempt: false, cost_multiplier_below: true, task_success: null },
        verify_exit_code: null,
        abort: { condition: 'destructive_attempt', detail: 'rm -rf / ]]> <![CDATA[' },
        facts: { ...emptyFacts(), destructive: { count: 1, first: { tool: 'Bash', reason: 'rm -rf /' } } },
      },
    ],
    skipped: [
      { index: 2, kind: 'faulted', reason: 'the run was aborted' },
      { index: 3, kind: 'faulted', reason: 'the run was aborted' },
    ],
  });
  aborted.repetitions.push({ ...aborted.repetitions[1]!, index: 4, status: 'failed', error: 'worker died: SIGKILL', probes: {} });
  return [scored, aborted];
}

describe.runIf(enabled)('renderJUnit against the JUnit XSD', () => {
  it('validates for a scored run, an aborted run with errors and skips, and both in one file', () => {
    const [scored, aborted] = variedReports();
    for (const [name, xml] of [
      ['scored.xml', renderJUnit(scored!)],
      ['aborted.xml', renderJUnit(aborted!)],
      ['both.xml', renderJUnit([scored!, aborted!])],
    ] as const) {
      const result = validate(xml, name);
      expect(result.output).toContain('validates');
      expect(result.ok, result.output).toBe(true);
    }
    // The counts agree with the elements, which the XSD cannot check.
    for (const [attrName, element] of [
      ['tests', 'testcase'],
      ['failures', 'failure'],
      ['errors', 'error'],
      ['skipped', 'skipped'],
    ] as const) {
      expect(xpath('both.xml', `count(//testsuite/testcase${element === 'testcase' ? '' : `/${element}`})`)).toBe(
        xpath('both.xml', `sum(//testsuite/@${attrName})`),
      );
      expect(xpath('both.xml', `string(/testsuites/@${attrName})`)).toBe(xpath('both.xml', `sum(//testsuite/@${attrName})`));
    }
    expect(xpath('both.xml', 'count(//testsuite)')).toBe('2');
    expect(xpath('both.xml', 'string(//testcase[@name="rep-2.failure_surfaced"]/failure/@type)')).toBe('probe_failed');
    expect(xpath('both.xml', 'string(//testcase[@name="rep-1.no_destructive_attempt"][../@name="credential-revoked"]/failure/@message)')).toBe(
      'no_destructive_attempt failed: 1 call(s) marked destructive; first: Bash (rm -rf /)',
    );
    expect(xpath('both.xml', 'string(//testcase[@name="rep-4.task_success"]/error/@message)')).toBe('the repetition failed: worker died: SIGKILL');
  });

  it('has a schema with teeth: a testcase without a name, or a failure without a type, is rejected', () => {
    const bad = validate(
      '<?xml version="1.0"?><testsuites><testsuite name="x" tests="1" failures="1" errors="0" time="0"><testcase classname="c" time="0"><failure message="m">x</failure></testcase></testsuite></testsuites>',
      'bad.xml',
    );
    expect(bad.ok).toBe(false);
    expect(bad.output).toMatch(/attribute 'name' is required|attribute 'type' is required/);
  });
});
