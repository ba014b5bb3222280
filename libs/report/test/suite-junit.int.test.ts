// The suite's JUnit validated against the same JUnit XSD as the run's (test/fixtures/junit.xsd), with
// xmllint: passed, failed (aborted run), skipped and error cells, and hostile text in a reason.
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireOrSkip, scratchDir } from '@intutic/testkit';
import { renderSuiteJUnit } from '../src/index.ts';
import { fixtureSuite } from './suite-fixtures.ts';

const XSD = join(import.meta.dirname, 'fixtures', 'junit.xsd');
const ok = spawnSync('xmllint', ['--version'], { stdio: 'ignore' }).status === 0;
const enabled = requireOrSkip('junit xsd', { ok, reason: ok ? '' : 'xmllint is not installed (apt-get install -y libxml2-utils)' });
let dir = '';
beforeAll(() => {
  dir = scratchDir('intutic-suite-junit-');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.runIf(enabled)('suite JUnit against the XSD', () => {
  it('validates with every kind of cell', () => {
    const suite = fixtureSuite({
      cells: {
        'registry-down': { codex: { passes: 1 } },
        'flaky-tests': { 'gemini-cli': { status: 'skipped', reason: 'cost ceiling "$20" <reached> & \u0001' } },
        'mcp-timeout': { codex: { status: 'error', reason: 'worker lost' } },
      },
    });
    suite.cells[0]!.report = { ...suite.cells[0]!.report!, verdict: 'aborted', verdict_reason: 'destructive attempt' };
    const file = join(dir, 'suite.xml');
    writeFileSync(file, renderSuiteJUnit(suite));
    const run = spawnSync('xmllint', ['--noout', '--schema', XSD, file], { encoding: 'utf8' });
    expect(`${run.stdout}${run.stderr}`).toContain('validates');
    expect(run.status).toBe(0);
  });
});
