import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IntuticError } from '@intutic/errors';
import {
  loadPolicy,
  parseBypasses,
  parseSnapshot,
  policyPaths,
  policyRequired,
  POLICY_REQUIRED_ENV,
  STARTER_BYPASSES,
  STARTER_SNAPSHOT,
} from '../src/index.ts';
import { scratchDir } from '@intutic/testkit';

const dir = () => scratchDir('intutic-policy-');

function errorOf(fn: () => unknown): IntuticError {
  try {
    fn();
  } catch (error) {
    if (error instanceof IntuticError) return error;
    throw error;
  }
  throw new Error('expected an error');
}

describe('loadPolicy', () => {
  it('reads ~/.intutic/hooks/ by default', () => {
    const home = dir();
    mkdirSync(join(home, '.intutic/hooks'), { recursive: true });
    writeFileSync(join(home, '.intutic/hooks/snapshot-rules.json'), STARTER_SNAPSHOT);
    writeFileSync(join(home, '.intutic/hooks/approved-bypasses.json'), '{"bypasses":[{"id":"b","rule":"destructive.*","reason":"ok"}]}');
    const policy = loadPolicy({ HOME: home });
    expect(policy.missing.snapshot).toBe(false);
    expect(policy.rules.map((r) => r.id)).toContain('aws-access-keys');
    expect(policy.bypasses).toEqual([{ id: 'b', rule: 'destructive.*', reason: 'ok' }]);
    expect(policy.sources.snapshot).toBe(join(home, '.intutic/hooks/snapshot-rules.json'));
  });

  it('follows INTUTIC_SNAPSHOT_RULES and INTUTIC_APPROVED_BYPASSES', () => {
    const d = dir();
    writeFileSync(join(d, 'rules.json'), '{"rules":[{"id":"x","subject":"tool","pattern":"Bash","action":"hold"}]}');
    const env = { HOME: dir(), INTUTIC_SNAPSHOT_RULES: join(d, 'rules.json'), INTUTIC_APPROVED_BYPASSES: join(d, 'none.json') };
    expect(policyPaths(env)).toEqual({ snapshot: join(d, 'rules.json'), bypasses: join(d, 'none.json') });
    const policy = loadPolicy(env);
    expect(policy.rules).toEqual([{ id: 'x', subject: 'tool', pattern: 'Bash', action: 'hold', mode: 'enforce', reason: '' }]);
    expect(policy.sources.bypasses).toBeNull();
  });

  it('reports a missing snapshot instead of failing', () => {
    const policy = loadPolicy({ HOME: dir() });
    expect(policy).toMatchObject({ rules: [], bypasses: [], missing: { snapshot: true }, sources: { snapshot: null, bypasses: null } });
  });

  it('the starter files parse', () => {
    expect(parseSnapshot('s.json', STARTER_SNAPSHOT).length).toBeGreaterThanOrEqual(5);
    expect(parseBypasses('b.json', STARTER_BYPASSES)).toEqual([]);
  });
});

describe('a malformed policy file is E_POLICY_INVALID with file:line', () => {
  it('syntax errors give line and column', () => {
    const e = errorOf(() => parseSnapshot('/p/rules.json', '{\n  "rules": [\n    {"id": "a",}\n  ]\n}'));
    expect(e.code).toBe('E_POLICY_INVALID');
    expect(e.message).toMatch(/^\/p\/rules\.json:3:\d+: not valid JSON/);
  });

  it('a bad field names the rule, the field and its line', () => {
    const text =
      '{\n  "rules": [\n    {"id": "ok", "subject": "tool", "pattern": "x", "action": "block"},\n    {\n      "id": "bad",\n      "subject": "tool",\n      "pattern": "x",\n      "action": "deny"\n    }\n  ]\n}';
    const e = errorOf(() => parseSnapshot('/p/rules.json', text));
    expect(e.message).toBe('/p/rules.json:8: rules[1].action must be one of block, hold, redact');
  });

  it.each([
    ['an unknown field', '{"rules":[{"id":"a","subject":"tool","pattern":"x","action":"block","acton":"x"}]}', /rules\[0\]\.acton is not a known field/],
    ['a missing id', '{"rules":[{"subject":"tool","pattern":"x","action":"block"}]}', /rules\[0\]\.id is required/],
    [
      'a duplicate id',
      '{"rules":[{"id":"a","subject":"tool","pattern":"x","action":"block"},{"id":"a","subject":"tool","pattern":"y","action":"block"}]}',
      /"a" is used by an earlier rule/,
    ],
    ['a reserved id', '{"rules":[{"id":"destructive.x","subject":"tool","pattern":"x","action":"block"}]}', /reserved/],
    ['a bad subject', '{"rules":[{"id":"a","subject":"file","pattern":"x","action":"block"}]}', /subject must be one of tool, command, path, content, host/],
    ['a bad mode', '{"rules":[{"id":"a","subject":"tool","pattern":"x","action":"block","mode":"audit"}]}', /mode must be one of enforce, warn, shadow/],
    ['a bad regex', '{"rules":[{"id":"a","subject":"content","pattern":"/(unclosed/","action":"block"}]}', /pattern is not a valid pattern/],
    ['rules not an array', '{"rules":{}}', /rules must be an array/],
    ['a wrong version', '{"version":2,"rules":[]}', /version must be 1/],
  ])('%s', (_, text, message) => {
    const e = errorOf(() => parseSnapshot('r.json', text));
    expect(e.code).toBe('E_POLICY_INVALID');
    expect(e.message).toMatch(message);
  });

  it('bypass errors too', () => {
    expect(errorOf(() => parseBypasses('b.json', '{"bypasses":[{"id":"b","rule":"x"}]}')).message).toBe('b.json:1: bypasses[0].reason is required');
    expect(errorOf(() => parseBypasses('b.json', '{"bypasses":[{"id":"b","rule":"x","reason":"r","expires_at":"soon"}]}')).message).toMatch(
      /expires_at must be an ISO 8601 date/,
    );
  });

  it('loadPolicy throws for a malformed file it finds', () => {
    const d = dir();
    writeFileSync(join(d, 'r.json'), 'not json');
    expect(errorOf(() => loadPolicy({ HOME: d, INTUTIC_SNAPSHOT_RULES: join(d, 'r.json') })).message).toMatch(/r\.json:1:1: not valid JSON/);
  });
});

/** The shared rows (libs/gates/conformance/decisions.json, policy_loading): the Python SDK runs them too. */
interface LoadingRow {
  name: string;
  env: Record<string, string>;
  snapshot: string | { directory: true } | null;
  bypasses: string | null;
  expect: { error?: string; message_contains?: string[]; rules?: string[]; bypasses?: string[]; missing_snapshot?: boolean };
}
const loadingRows = (
  JSON.parse(readFileSync(new URL('../../gates/conformance/decisions.json', import.meta.url), 'utf8')) as { policy_loading: { cases: LoadingRow[] } }
).policy_loading.cases;

describe('INTUTIC_POLICY_REQUIRED: a run that carried a snapshot in fails closed without it', () => {
  it.each(loadingRows.map((r) => [r.name, r] as const))('%s', (_, row) => {
    const d = dir();
    const env = {
      HOME: dir(),
      INTUTIC_SNAPSHOT_RULES: join(d, 'snapshot-rules.json'),
      INTUTIC_APPROVED_BYPASSES: join(d, 'approved-bypasses.json'),
      ...row.env,
    };
    if (typeof row.snapshot === 'string') writeFileSync(env.INTUTIC_SNAPSHOT_RULES, row.snapshot);
    else if (row.snapshot) mkdirSync(env.INTUTIC_SNAPSHOT_RULES);
    if (row.bypasses !== null) writeFileSync(env.INTUTIC_APPROVED_BYPASSES, row.bypasses);
    if (row.expect.error) {
      const e = errorOf(() => loadPolicy(env));
      expect(e.code).toBe(row.expect.error);
      for (const part of row.expect.message_contains ?? []) expect(e.message).toContain(part);
      // The reason a gate gives names the file itself, not only its base name.
      expect(e.message).toContain(env.INTUTIC_SNAPSHOT_RULES);
      return;
    }
    const policy = loadPolicy(env);
    expect({ rules: policy.rules.map((r) => r.id), bypasses: policy.bypasses.map((b) => b.id), missing_snapshot: policy.missing.snapshot }).toEqual(row.expect);
  });

  it('reads the flag as set unless it is empty or 0', () => {
    expect([undefined, '', ' ', '0', '1', 'true', 'yes'].map((v) => policyRequired(v === undefined ? {} : { [POLICY_REQUIRED_ENV]: v }))).toEqual([
      false,
      false,
      false,
      false,
      true,
      true,
      true,
    ]);
  });
});
