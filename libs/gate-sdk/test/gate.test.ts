import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createGate, GateError } from '../src/index.ts';
import { scratchDir } from '@intutic/testkit';

const CANARY = 'E-INTUTIC-1234abcd';

function project(faults: unknown[] | null, rules: unknown[] = []) {
  const dir = scratchDir('intutic-sdk-');
  mkdirSync(join(dir, 'home/.intutic/hooks'), { recursive: true });
  writeFileSync(join(dir, 'home/.intutic/hooks/snapshot-rules.json'), JSON.stringify({ rules }));
  const env: NodeJS.ProcessEnv = { HOME: join(dir, 'home'), INTUTIC_CHAOS_EVENTS: join(dir, 'events.jsonl') };
  if (faults) {
    const plan = {
      schema_version: 1,
      experiment: 'e',
      run_id: 'r1',
      canary: CANARY,
      faults: faults.map((f, index) => ({ index, match: {}, after_calls: 0, times: null, options: {}, ...(f as object) })),
    };
    writeFileSync(join(dir, 'plan.json'), JSON.stringify(plan));
    env.INTUTIC_CHAOS_PLAN = join(dir, 'plan.json');
  }
  const events = () =>
    readFileSync(join(dir, 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { dir, env, events };
}

function refusal(fn: () => unknown): GateError {
  try {
    fn();
  } catch (e) {
    if (e instanceof GateError) return e;
    throw e;
  }
  throw new Error('expected a GateError');
}

describe('@intutic/gate', () => {
  it('allows a call, and records its outcome, as source sdk', () => {
    const p = project(null);
    const gate = createGate({ env: p.env, projectDir: p.dir, harness: 'my-agent' });
    const checked = gate.check({ tool: 'search', input: { q: 'x' }, callId: 'c1' });
    expect(checked).toMatchObject({ tool: 'search', callId: 'c1', input: { q: 'x' }, decision: { decision: 'allow' } });
    gate.record(checked, { ok: true });
    expect(p.events()).toEqual([
      expect.objectContaining({ type: 'gate_decision', source: 'sdk', harness: 'my-agent', decision: 'allow', call_id: 'c1' }),
      expect.objectContaining({ type: 'tool_call', source: 'sdk', tool: 'search', ok: true, call_id: 'c1' }),
    ]);
  });

  it('a block throws BLOCKED and marks a destructive call', () => {
    const p = project(null);
    const e = refusal(() => createGate({ env: p.env, projectDir: p.dir }).check({ tool: 'shell', input: { command: 'rm -rf ~' } }));
    expect(e.code).toBe('BLOCKED');
    expect(e.decision).toMatchObject({ destructive: true, rule: 'destructive.rm_recursive' });
  });

  it('tool.error throws CHAOS_FAULT with the message and the canary', () => {
    const p = project([{ id: 'tool.error', match: { tool: 'search' }, times: 1, options: { message: 'index offline' } }]);
    const gate = createGate({ env: p.env, projectDir: p.dir });
    const e = refusal(() => gate.check({ tool: 'search', input: {}, callId: 'x1' }));
    expect(e.code).toBe('CHAOS_FAULT');
    expect(e.message).toContain('index offline');
    expect(e.message).toContain(CANARY);
    expect(gate.check({ tool: 'search', input: {} }).decision.decision).toBe('allow');
    expect(p.events().filter((ev) => ev.type === 'plan_loaded')).toEqual([expect.objectContaining({ source: 'sdk', detail: 'sdk' })]);
    expect(p.events()).toContainEqual(expect.objectContaining({ type: 'fault_injected', call_id: 'x1' }));
  });

  it('a delay hold throws HELD until delay_s has passed, then lets the identical call through', () => {
    const p = project([{ id: 'permission.deny_or_delay', times: 1, options: { mode: 'delay', delay_s: 2 } }]);
    const clock = { t: 0 };
    const gate = createGate({ env: p.env, projectDir: p.dir, now: () => clock.t });
    const call = { tool: 'deploy', input: { env: 'staging' } };
    expect(refusal(() => gate.check(call)).code).toBe('HELD');
    clock.t = 1_999;
    expect(refusal(() => gate.check(call)).message).toMatch(/^\[Intutic Governance\] HELD: .*E-INTUTIC-1234abcd/);
    clock.t = 2_000;
    expect(gate.check(call).decision.decision).toBe('allow');
  });

  it('hold_then_deny ends in PERMISSION_DENIED; deny mode denies at once', () => {
    const p = project([
      { id: 'permission.deny_or_delay', match: { tool: 'a' }, times: 1, options: { mode: 'hold_then_deny', delay_s: 0 } },
      { id: 'permission.deny_or_delay', match: { tool: 'b' }, options: { mode: 'deny' } },
    ]);
    const gate = createGate({ env: p.env, projectDir: p.dir });
    expect(refusal(() => gate.check({ tool: 'a', input: 1 })).code).toBe('HELD');
    expect(refusal(() => gate.check({ tool: 'a', input: 1 })).code).toBe('PERMISSION_DENIED');
    expect(refusal(() => gate.check({ tool: 'b', input: 1 })).code).toBe('PERMISSION_DENIED');
  });

  it('a redaction hands back the redacted input to run with', () => {
    const p = project(null, [{ id: 'k', subject: 'content', pattern: '/tok_[0-9]+/', action: 'redact' }]);
    const checked = createGate({ env: p.env, projectDir: p.dir }).check({ tool: 'post', input: { body: 'tok_123 hi' } });
    expect(checked.input).toEqual({ body: '[REDACTED:k] hi' });
  });

  it('run() checks, runs with the allowed input, and records success or failure', async () => {
    const p = project(null);
    const gate = createGate({ env: p.env, projectDir: p.dir });
    expect(await gate.run({ tool: 't', input: 2, callId: 'ok' }, (n) => (n as number) * 2)).toBe(4);
    await expect(gate.run({ tool: 't', input: 3, callId: 'bad' }, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(gate.run({ tool: 'sh', input: { command: 'git clean -fdx' } }, () => 'never')).rejects.toMatchObject({ code: 'BLOCKED' });
    const calls = p.events().filter((e) => e.type === 'tool_call');
    expect(calls.map((e) => [e.call_id, e.ok])).toEqual([
      ['ok', true],
      ['bad', false],
      [expect.any(String), false],
    ]);
  });

  it('the published bundle runs on Node alone, without node_modules', async () => {
    const { build } = await import('esbuild');
    const out = scratchDir('intutic-sdk-dist-');
    await build({
      entryPoints: [new URL('../src/index.ts', import.meta.url).pathname],
      outfile: join(out, 'index.mjs'),
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node18',
      logLevel: 'warning',
    });
    const p = project(null);
    const script = `import { createGate, GateError } from ${JSON.stringify(join(out, 'index.mjs'))};
      const g = createGate({ projectDir: ${JSON.stringify(p.dir)} });
      try { g.check({ tool: 'sh', input: { command: 'git push --force' } }); } catch (e) { console.log(e instanceof GateError, e.code); }`;
    const stdout = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: out, env: { ...p.env, PATH: process.env.PATH } }).toString();
    expect(stdout.trim()).toBe('true BLOCKED');
  });
});
