import { describe, expect, it } from 'vitest';
import {
  CANARY_PATTERN,
  FAULTS,
  FAULT_IDS,
  canonicalToolName,
  countMatchingCall,
  emptyCounter,
  faultMatches,
  faultsInjectedBy,
  generateCanary,
  getFault,
  patternMatches,
  type FaultCounter,
} from '../src/index.ts';

describe('fault catalog', () => {
  it('has the eleven faults of the spec, each once', () => {
    expect(FAULTS.map((f) => f.id)).toEqual([...FAULT_IDS]);
    expect(new Set(FAULT_IDS).size).toBe(11);
  });

  it.each([
    ['llm.rate_limit', ['proxy'], 'fail-safe'],
    ['llm.upstream_5xx', ['proxy'], 'fail-safe'],
    ['llm.context_trim', ['proxy'], 'mutating'],
    ['llm.model_degrade', ['proxy'], 'mutating'],
    ['tool.error', ['gate', 'mcp-proxy'], 'fail-safe'],
    ['tool.stale_data', ['mcp-proxy'], 'mutating'],
    ['mcp.toolset_change', ['mcp-proxy'], 'mutating'],
    ['permission.deny_or_delay', ['gate'], 'fail-safe'],
    ['inject.tool_result', ['mcp-proxy'], 'mutating'],
    ['egress.dns_fail', ['proxy'], 'fail-safe'],
    ['egress.credential_401', ['proxy'], 'fail-safe'],
  ] as const)('%s is injected by %j and is %s, as the spec table says', (id, injectors, safety) => {
    expect(getFault(id).injectedBy).toEqual(injectors);
    expect(getFault(id).safety).toBe(safety);
  });

  it('fills the defaults the spec gives: retry_after_s 5, delay_s 0', () => {
    expect(getFault('llm.rate_limit').options.parse({})).toEqual({ retry_after_s: 5 });
    expect(getFault('permission.deny_or_delay').options.parse({})).toMatchObject({ delay_s: 0 });
  });

  it('bounds delay_s to 0–600 and 5xx statuses to 500, 502, 503, 529', () => {
    expect(getFault('permission.deny_or_delay').options.safeParse({ delay_s: 601 }).success).toBe(false);
    expect(getFault('llm.upstream_5xx').options.safeParse({ status: 504 }).success).toBe(false);
    expect(getFault('llm.upstream_5xx').options.safeParse({ status: 529 }).success).toBe(true);
  });

  it('requires match.host for the egress faults', () => {
    expect(getFault('egress.dns_fail').requiredMatch).toBe('host');
    expect(getFault('egress.credential_401').requiredMatch).toBe('host');
  });

  it('lists what each component injects', () => {
    expect(faultsInjectedBy('gate')).toEqual(['tool.error', 'permission.deny_or_delay']);
  });
});

describe('matching', () => {
  it('a leading * matches by suffix', () => {
    expect(patternMatches('*.example.org', 'registry.example.org')).toBe(true);
    expect(patternMatches('*.example.org', 'example.org')).toBe(false);
    expect(patternMatches('api.github.com', 'api.github.com')).toBe(true);
    expect(patternMatches('api.github.com', 'x.api.github.com')).toBe(false);
  });

  it('hosts and models ignore case; tools do not', () => {
    expect(faultMatches({ host: '*.Example.org' }, { host: 'REGISTRY.example.org' })).toBe(true);
    expect(faultMatches({ model: 'claude-*' }, { model: 'claude-sonnet' })).toBe(false);
    expect(faultMatches({ model: '*sonnet' }, { model: 'Claude-Sonnet' })).toBe(true);
    expect(faultMatches({ tool: 'bash' }, { tool: 'Bash' })).toBe(false);
  });

  it('folds mcp__server__tool and tool into the same tool', () => {
    expect(canonicalToolName('mcp__fs__read_file')).toBe('read_file');
    expect(faultMatches({ tool: 'read_file' }, { tool: 'mcp__fs__read_file' })).toBe(true);
    expect(faultMatches({ tool: 'mcp__fs__read_file' }, { tool: 'read_file', server: 'fs' })).toBe(true);
    expect(faultMatches({ tool: 'mcp__fs__read_file' }, { tool: 'read_file', server: 'other' })).toBe(false);
  });

  it('a match key the call does not have never matches it', () => {
    expect(faultMatches({ host: 'a.test' }, { tool: 'Bash' })).toBe(false);
    expect(faultMatches({}, { tool: 'Bash' })).toBe(true);
  });
});

describe('after_calls and times', () => {
  const run = (fault: { after_calls: number; times: number | null }, calls: number): boolean[] => {
    let counter: FaultCounter = emptyCounter();
    const out: boolean[] = [];
    for (let i = 0; i < calls; i++) {
      const { inject, next } = countMatchingCall(fault, counter);
      out.push(inject);
      counter = next;
    }
    return out;
  };

  it('after_calls: skip this many matching calls first', () => {
    expect(run({ after_calls: 2, times: null }, 5)).toEqual([false, false, true, true, true]);
  });

  it('times: inject at most this many times; absent = every match', () => {
    expect(run({ after_calls: 1, times: 2 }, 5)).toEqual([false, true, true, false, false]);
    expect(run({ after_calls: 0, times: null }, 3)).toEqual([true, true, true]);
  });
});

describe('canary', () => {
  it('is E-INTUTIC- and eight hex digits, fresh each time', () => {
    const a = generateCanary();
    expect(a).toMatch(/^E-INTUTIC-[0-9a-f]{8}$/);
    expect(CANARY_PATTERN.test(a)).toBe(true);
    expect(generateCanary()).not.toBe(a);
  });
});
