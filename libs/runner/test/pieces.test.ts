import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ENV } from '@intutic/faults';
import { buildSandboxEnv, CanaryScanner, makeStandIns } from '../src/index.ts';

describe('the canary scanner', () => {
  it('finds the canary however the stdout is chunked', () => {
    const canary = 'E-INTUTIC-0a1b2c3d';
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.array(fc.nat(40), { maxLength: 8 }), (before, after, cuts) => {
        const text = before + canary + after;
        const scanner = new CanaryScanner(canary);
        let at = 0;
        for (const cut of [...cuts].sort((a, b) => a - b)) {
          scanner.push(text.slice(at, Math.max(at, cut)));
          at = Math.max(at, cut);
        }
        scanner.push(text.slice(at));
        return scanner.found;
      }),
    );
  });

  it('does not find what is not there, nor a different canary', () => {
    const scanner = new CanaryScanner('E-INTUTIC-0a1b2c3d');
    for (const chunk of ['E-INTUTIC-0a1b', '2c3e', ' E-INTUTIC-0a1b2c3', 'x']) scanner.push(chunk);
    expect(scanner.found).toBe(false);
  });
});

describe('the sandbox environment', () => {
  const base = {
    proxyUrl: 'http://172.17.0.1:4567',
    proxyHost: '172.17.0.1',
    policyEnv: { [ENV.snapshotRules]: '/work/.intutic-chaos/policy/snapshot-rules.json' },
    canary: 'E-INTUTIC-00000000',
    standIns: {},
  };

  it('points the model APIs and egress at the proxy, and passes the plan only to faulted repetitions', () => {
    const faulted = buildSandboxEnv({ ...base, faulted: true, passNames: [], workerEnv: {} });
    expect(faulted.values).toMatchObject({
      ANTHROPIC_BASE_URL: 'http://172.17.0.1:4567',
      OPENAI_BASE_URL: 'http://172.17.0.1:4567/v1',
      GOOGLE_GEMINI_BASE_URL: 'http://172.17.0.1:4567',
      HTTPS_PROXY: 'http://172.17.0.1:4567',
      https_proxy: 'http://172.17.0.1:4567',
      NO_PROXY: '172.17.0.1',
      [ENV.plan]: '/intutic/governance/plan.json',
      [ENV.events]: '/work/.intutic-chaos/events.jsonl',
      [ENV.snapshotRules]: '/work/.intutic-chaos/policy/snapshot-rules.json',
    });
    const baseline = buildSandboxEnv({ ...base, faulted: false, passNames: [], workerEnv: {} });
    expect(baseline.names).not.toContain(ENV.plan);
    expect(baseline.names).toContain(ENV.events);
  });

  it('gives a stand-in, never the value, for each provider key the user has set, and says which are missing', () => {
    const passNames = ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'GEMINI_API_KEY'];
    const workerEnv = { ANTHROPIC_API_KEY: 'sk-ant-api03-the-real-one', GEMINI_API_KEY: 'AIzaSy-the-real-gemini-one', PATH: '/bin' };
    const standIns = makeStandIns(passNames, workerEnv);
    expect(Object.keys(standIns)).toEqual(['ANTHROPIC_API_KEY', 'GEMINI_API_KEY']);
    const env = buildSandboxEnv({ ...base, faulted: true, passNames, workerEnv, standIns });
    expect(env.values.ANTHROPIC_API_KEY).toBe(standIns.ANTHROPIC_API_KEY);
    expect(env.values.ANTHROPIC_API_KEY).toMatch(/^sk-ant-api03-intutic-[0-9a-f]{48}$/);
    expect(env.values.GEMINI_API_KEY).toBe(standIns.GEMINI_API_KEY);
    for (const real of [workerEnv.ANTHROPIC_API_KEY, workerEnv.GEMINI_API_KEY]) expect(Object.values(env.values).join('\n')).not.toContain(real);
    expect(env.names).not.toContain('PATH');
    expect(env.missing).toEqual(['OPENAI_API_KEY']);
  });

  it("makes stand-ins shaped like each provider's keys, fresh each time", () => {
    const workerEnv = { ANTHROPIC_API_KEY: 'a', OPENAI_API_KEY: 'o', GEMINI_API_KEY: 'g' };
    const names = ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'GEMINI_API_KEY'];
    const first = makeStandIns(names, workerEnv);
    const second = makeStandIns(names, workerEnv);
    expect(first.ANTHROPIC_API_KEY).toMatch(/^sk-ant-api03-intutic-[0-9a-f]{48}$/);
    expect(first.OPENAI_API_KEY).toMatch(/^sk-intutic-[0-9a-f]{48}$/);
    // Google API keys start AIza; the stand-in is URL-safe, since Gemini clients may send it as ?key=.
    expect(first.GEMINI_API_KEY).toMatch(/^AIzaSy-intutic-[0-9a-f]{48}$/);
    for (const name of names) expect(second[name]).not.toBe(first[name]);
    // Only the names enqueued, only when set (blank is unset), and only provider keys.
    expect(makeStandIns(['ANTHROPIC_API_KEY'], workerEnv)).toEqual({ ANTHROPIC_API_KEY: expect.any(String) });
    expect(makeStandIns(['ANTHROPIC_API_KEY', 'X'], { ANTHROPIC_API_KEY: '  ', X: 'x' })).toEqual({});
  });

  it('refuses to put the canary in any value', () => {
    expect(() => buildSandboxEnv({ ...base, faulted: true, passNames: ['X'], workerEnv: { X: `token ${base.canary}` } })).toThrow(/canary/);
  });
});
