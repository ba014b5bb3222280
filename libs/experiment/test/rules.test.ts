// Every rule of the spec's "The experiment file" and the fault catalog, one case each, named after
// the rule it checks: the code, the message and where it points.
import { describe, expect, it } from 'vitest';
import { check, experimentText, type BaseParts } from './helpers.ts';

interface ErrorCase {
  name: string;
  text: string;
  code: string;
  message: string;
  /** line:column, when the case pins it. */
  at?: string;
}

const base = experimentText();
const withParts = (parts: BaseParts) => experimentText(parts);
const fault = (body: string) => withParts({ faults: body });
const probes = (body: string) => withParts({ probes: body });

const cases: ErrorCase[] = [
  {
    name: 'name: lowercase letters, digits and hyphens',
    text: base.replace('name: base-case', 'name: Base Case'),
    code: 'invalid-format',
    message: 'name: must be lowercase letters, digits and hyphens',
    at: '1:7',
  },
  { name: 'name: no leading hyphen', text: base.replace('name: base-case', 'name: -base'), code: 'invalid-format', message: 'name:' },
  {
    name: 'repeat: 1–20 (above)',
    text: base.replace('repeat: 2', 'repeat: 21'),
    code: 'out-of-range',
    message: 'repeat: must be at most 20 (got 21)',
    at: '5:9',
  },
  { name: 'repeat: 1–20 (below)', text: base.replace('repeat: 2', 'repeat: 0'), code: 'out-of-range', message: 'repeat: must be at least 1' },
  { name: 'repeat: a whole number', text: base.replace('repeat: 2', 'repeat: 1.5'), code: 'invalid-type', message: 'repeat: must be a whole number' },
  { name: 'agent is required', text: base.replace(/^agent:.*\n/m, ''), code: 'missing-key', message: 'missing required key "agent"', at: '1:1' },
  { name: 'verify must not be empty', text: base.replace('verify: npm test', 'verify: ""'), code: 'out-of-range', message: 'verify: must not be empty' },
  {
    name: 'known fault ids, with the nearest suggested',
    text: fault('  - id: egress.dns_fial\n    match: { host: a.test }'),
    code: 'unknown-fault',
    message: 'unknown fault id "egress.dns_fial" (did you mean "egress.dns_fail"?)',
    at: '7:9',
  },
  { name: 'a fault id far from any gets the list of ids', text: fault('  - id: banana'), code: 'unknown-fault', message: 'expected one of: llm.rate_limit' },
  {
    name: "each fault's own options: unknown option keys are errors (a typo must not silently disable a fault)",
    text: fault('  - id: tool.error\n    match: { tool: Bash }\n    mesage: boom'),
    code: 'unknown-key',
    message: 'unknown key "mesage" in fault tool.error (did you mean "message"?)',
    at: '9:5',
  },
  {
    name: 'llm.upstream_5xx status: 500, 502, 503 or 529',
    text: fault('  - id: llm.upstream_5xx\n    status: 501'),
    code: 'invalid-value',
    message: 'faults[0].status: must be one of 500, 502, 503, 529, got 501',
    at: '8:13',
  },
  {
    name: 'llm.rate_limit retry_after_s: a whole number',
    text: fault('  - id: llm.rate_limit\n    retry_after_s: 2.5'),
    code: 'invalid-type',
    message: 'retry_after_s: must be a whole number',
  },
  {
    name: 'permission.deny_or_delay delay_s: 0–600',
    text: fault('  - id: permission.deny_or_delay\n    match: { tool: Edit }\n    mode: delay\n    delay_s: 900'),
    code: 'out-of-range',
    message: 'delay_s: must be at most 600 (got 900)',
  },
  {
    name: 'permission.deny_or_delay delay_s: not negative',
    text: fault('  - id: permission.deny_or_delay\n    match: { tool: Edit }\n    delay_s: -1'),
    code: 'out-of-range',
    message: 'delay_s: must be at least 0',
  },
  {
    name: 'permission modes: deny, delay, hold_then_deny',
    text: fault('  - id: permission.deny_or_delay\n    match: { tool: Edit }\n    mode: hold'),
    code: 'invalid-value',
    message: 'faults[0].mode: "hold" is not allowed',
  },
  {
    name: 'llm.model_degrade needs to_model',
    text: fault('  - id: llm.model_degrade'),
    code: 'missing-key',
    message: 'missing required key "to_model" in fault llm.model_degrade',
    at: '7:5',
  },
  {
    name: 'llm.context_trim drop_system: true or false',
    text: fault('  - id: llm.context_trim\n    drop_system: yes'),
    code: 'invalid-type',
    message: 'drop_system: must be true or false',
  },
  {
    name: 'mcp.toolset_change redefine items are checked too',
    text: fault('  - id: mcp.toolset_change\n    match: { tool: read_text_file }\n    redefine: [{ name: read_text_file, descripton: x }]'),
    code: 'unknown-key',
    message: 'unknown key "descripton"',
  },
  {
    name: 'inject.tool_result needs a payload',
    text: fault('  - id: inject.tool_result\n    match: { tool: read_text_file }'),
    code: 'missing-key',
    message: 'missing required key "payload"',
  },
  {
    name: 'match.host is required for egress faults (dns_fail)',
    text: fault('  - id: egress.dns_fail'),
    code: 'match-required',
    message: 'fault egress.dns_fail requires match.host',
    at: '7:5',
  },
  {
    name: 'match.host is required for egress faults (credential_401)',
    text: fault('  - id: egress.credential_401\n    match: {}'),
    code: 'match-required',
    message: 'fault egress.credential_401 requires match.host',
    at: '8:12',
  },
  {
    name: 'match keys are tool, host or model',
    text: fault('  - id: llm.rate_limit\n    match: { modle: claude-sonnet-4-5 }'),
    code: 'unknown-key',
    message: 'unknown key "modle" in match of fault llm.rate_limit (did you mean "model"?)',
    at: '8:14',
  },
  {
    name: 'a match key the fault cannot match on could never match',
    text: fault('  - id: tool.error\n    match: { host: api.github.com }'),
    code: 'match-key',
    message: 'fault tool.error matches on tool only: match.host could never match',
  },
  {
    name: 'a match pattern must not be empty',
    text: fault('  - id: egress.dns_fail\n    match: { host: "" }'),
    code: 'out-of-range',
    message: 'faults[0].match.host: must not be empty',
  },
  {
    name: 'after_calls ≥ 0',
    text: fault('  - id: llm.rate_limit\n    after_calls: -2'),
    code: 'out-of-range',
    message: 'faults[0].after_calls: must be at least 0',
  },
  { name: 'times ≥ 1', text: fault('  - id: llm.rate_limit\n    times: 0'), code: 'out-of-range', message: 'faults[0].times: must be at least 1' },
  {
    name: 'at least one fault',
    text: fault('  []').replace('faults:\n  []', 'faults: []'),
    code: 'out-of-range',
    message: 'faults: must have at least 1 item',
  },
  { name: 'a fault needs an id', text: fault('  - match: { tool: Bash }'), code: 'missing-fault-id', message: 'faults[0]: this fault has no id' },
  {
    name: 'known probes, with the nearest suggested',
    text: probes('  - { id: task_sucess, weight: 1 }'),
    code: 'unknown-probe',
    message: 'unknown probe id "task_sucess" (did you mean "task_success"?)',
    at: '10:11',
  },
  { name: 'weights > 0', text: probes('  - { id: task_success, weight: -1 }'), code: 'out-of-range', message: 'probes[0].weight: must be greater than 0' },
  { name: 'weight is required', text: probes('  - { id: task_success }'), code: 'missing-key', message: 'missing required key "weight" in probe task_success' },
  {
    name: 'value where a probe needs one (cost_multiplier_below)',
    text: probes('  - { id: task_success, weight: 1 }\n  - { id: cost_multiplier_below, weight: 1 }'),
    code: 'probe-value',
    message: 'probe cost_multiplier_below needs a value',
  },
  {
    name: 'value where a probe needs one (recovered_within)',
    text: probes('  - { id: task_success, weight: 1 }\n  - { id: recovered_within, weight: 1 }'),
    code: 'probe-value',
    message: 'probe recovered_within needs a value',
  },
  {
    name: 'recovered_within value: a whole number of tool calls ≥ 1',
    text: probes('  - { id: task_success, weight: 1 }\n  - { id: recovered_within, weight: 1, value: 0 }'),
    code: 'out-of-range',
    message: 'probes[1].value: must be at least 1',
  },
  {
    name: 'cost_multiplier_below value > 0',
    text: probes('  - { id: task_success, weight: 1 }\n  - { id: cost_multiplier_below, weight: 1, value: 0 }'),
    code: 'out-of-range',
    message: 'probes[1].value: must be greater than 0',
  },
  {
    name: 'no value where a probe takes none',
    text: probes('  - { id: no_policy_hits, weight: 1, value: 2 }\n  - { id: task_success, weight: 1 }'),
    code: 'probe-value',
    message: 'probe no_policy_hits takes no value',
  },
  {
    name: 'min_pass_rate 0..1',
    text: probes('  - { id: task_success, weight: 1, min_pass_rate: -0.1 }'),
    code: 'out-of-range',
    message: 'min_pass_rate: must be at least 0',
  },
  {
    name: 'each probe once',
    text: probes('  - { id: task_success, weight: 1 }\n  - { id: task_success, weight: 2 }'),
    code: 'duplicate-probe',
    message: 'duplicate probe "task_success"',
    at: '11:11',
  },
  {
    name: 'a mandatory cost_usd_above abort condition',
    text: withParts({ abort: '  - destructive_attempt\n  - wall_clock_s_above: 60' }),
    code: 'cost-ceiling-missing',
    message: 'abort has no cost_usd_above: a cost ceiling is mandatory',
    at: '12:1',
  },
  {
    name: 'an experiment without abort is rejected (a cost ceiling is mandatory)',
    text: base.replace(/abort:[\s\S]*$/, ''),
    code: 'missing-key',
    message: 'missing required key "abort": a cost ceiling is mandatory',
  },
  {
    name: 'cost_usd_above > 0',
    text: withParts({ abort: '  - cost_usd_above: 0' }),
    code: 'out-of-range',
    message: 'abort[0].cost_usd_above: must be greater than 0',
  },
  {
    name: 'wall_clock_s_above > 0',
    text: withParts({ abort: '  - cost_usd_above: 1\n  - wall_clock_s_above: 0' }),
    code: 'out-of-range',
    message: 'abort[1].wall_clock_s_above: must be greater than 0',
  },
  {
    name: 'known abort conditions, with the nearest suggested',
    text: withParts({ abort: '  - cost_usd_above: 1\n  - destructive_attempts' }),
    code: 'unknown-abort',
    message: 'unknown abort condition "destructive_attempts" (did you mean "destructive_attempt"?)',
    at: '14:5',
  },
  {
    name: 'a misspelled abort condition with a value',
    text: withParts({ abort: '  - cost_usd_above: 1\n  - wallclock_s_above: 60' }),
    code: 'unknown-abort',
    message: 'unknown abort condition "wallclock_s_above" (did you mean "wall_clock_s_above"?)',
  },
  {
    name: 'each abort condition once',
    text: withParts({ abort: '  - cost_usd_above: 1\n  - cost_usd_above: 2' }),
    code: 'duplicate-abort',
    message: 'duplicate abort condition "cost_usd_above"',
  },
  {
    name: 'sandbox_image: a non-empty string',
    text: withParts({ extra: 'sandbox_image: 42' }),
    code: 'invalid-type',
    message: 'sandbox_image: must be a string, got 42',
  },
  {
    name: 'unknown top-level keys are errors, with the nearest suggested',
    text: withParts({ extra: 'sandbox_imgae: my-agent' }),
    code: 'unknown-key',
    message: 'unknown key "sandbox_imgae" (did you mean "sandbox_image"?)',
  },
  {
    name: 'unknown keys in a probe are errors',
    text: probes('  - { id: task_success, weight: 1, wait: 3 }'),
    code: 'unknown-key',
    message: 'unknown key "wait" in probe task_success',
  },
  {
    name: 'an abort item with two conditions',
    text: withParts({ abort: '  - { cost_usd_above: 1, wall_clock_s_above: 60 }' }),
    code: 'invalid-abort',
    message: 'one condition per list item',
  },
];

describe('experiment file rules', () => {
  it.each(cases)('$name', ({ text, code, message, at }) => {
    const result = check(text);
    expect(result.experiment).toBeUndefined();
    const hit = result.errors.find((e) => e.code === code && e.message.includes(message));
    expect(hit, JSON.stringify(result.errors, null, 1)).toBeDefined();
    if (at) expect(`${hit!.line}:${hit!.column}`).toBe(at);
  });

  it('reports all errors at once, in file order', () => {
    const text = base.replace('repeat: 2', 'repeat: 99').replace('name: base-case', 'name: X').replace('retry_after_s: 10', 'retry_after: 10');
    const result = check(text);
    expect(result.errors.map((e) => e.code)).toEqual(['invalid-format', 'out-of-range', 'unknown-key']);
    expect(result.errors.map((e) => e.line)).toEqual([1, 5, 8]);
  });

  it.each([
    ['the base experiment', base],
    [
      'an MCP tool named mcp__server__tool, times and a sandbox image',
      fault('  - id: tool.error\n    match: { tool: mcp__fs__read_text_file }\n    times: 2\n    message: disk on fire') + 'sandbox_image: my-agent-sandbox\n',
    ],
    ['a stream cut after chunks', fault('  - id: llm.upstream_5xx\n    match: { model: "*sonnet-4-5" }\n    status: 529\n    stream_cut_after_chunks: 3')],
    ['a stale result given as a mapping', fault('  - id: tool.stale_data\n    match: { tool: get_price }\n    result: { price: 1 }')],
    ['several faults', fault('  - id: llm.rate_limit\n  - id: tool.error\n    match: { tool: Bash }\n    times: 1')],
  ])('accepts %s', (_name, text) => {
    const result = check(text);
    expect(result.errors).toEqual([]);
    expect(result.experiment).toBeDefined();
  });
});

describe('YAML-level problems', () => {
  it('refuses an alias bomb instead of expanding it', () => {
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]',
      '',
    ].join('\n');
    const result = check(bomb);
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatchObject({ line: 1, column: 1, code: 'yaml-syntax' });
    expect(result.errors[0]!.message).toMatch(/alias/i);
  });

  it('locates problems the same with CRLF line endings', () => {
    const result = check(base.replace('repeat: 2', 'repeat: 40').replace(/\n/g, '\r\n'));
    expect(result.errors).toEqual([expect.objectContaining({ line: 5, column: 9, code: 'out-of-range' })]);
  });

  it('reports a document that is only a scalar as not a mapping', () => {
    expect(check('just some words\n').errors[0]).toMatchObject({ line: 1, column: 1, code: 'not-a-mapping' });
  });

  it('reports several documents in one file', () => {
    expect(check(`${base}---\n${base}`).errors[0]?.message).toContain('multiple documents');
  });
});
