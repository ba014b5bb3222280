// The entrypoint writes the managed gates' settings (libs/gates/src/managed.ts) as root before it
// drops privileges: the gate settings of the env block and the agent's home, in a root-owned 0444
// /run/intutic/gates.env that the agent's user can neither change nor replace, and nothing else of
// the env block (a provider key stays out of it).
import { describe, expect, it } from 'vitest';
import { dockerRequirement, requireOrSkip } from '@intutic/testkit';
import { runInSandbox } from '../src/index.ts';
import { labelledSuite } from './support.ts';

const ready = requireOrSkip('sandbox gates.env', dockerRequirement());

describe.runIf(ready)("the managed gates' settings file", () => {
  const suite = labelledSuite('gates-env');

  it('holds the gate settings and HOME, root-owned 0444, out of the agent user’s reach', async () => {
    const env = {
      INTUTIC_CHAOS_EVENTS: '/work/.intutic-chaos/events.jsonl',
      INTUTIC_CHAOS_PLAN: '/intutic/governance/plan.json',
      INTUTIC_SNAPSHOT_RULES: '/intutic/governance/policy/snapshot.json',
      INTUTIC_POLICY_REQUIRED: '1',
      ANTHROPIC_API_KEY: 'sk-ant-api03-intutic-standin',
    };
    const command = [
      'cat /run/intutic/gates.env',
      "stat -c 'owner=%u mode=%a' /run/intutic/gates.env",
      '(echo INTUTIC_CHAOS_EVENTS=/tmp/x >> /run/intutic/gates.env) 2>/dev/null && echo appended || echo append-refused',
      '(rm -f /run/intutic/gates.env) 2>/dev/null; test -e /run/intutic/gates.env && echo still-there',
    ].join('; ');
    let out = '';
    const result = await runInSandbox(suite.fx().engine, {
      image: suite.fx().image,
      workspace: suite.workspace(),
      envNames: Object.keys(env),
      env,
      labels: suite.label,
      command,
      onStdout: (c) => (out += c.toString()),
    });
    expect(result.exitCode).toBe(0);
    const lines = out.trim().split('\n');
    expect(lines.slice(0, 5).sort()).toEqual(
      [
        'HOME=/home/agent',
        'INTUTIC_CHAOS_EVENTS=/work/.intutic-chaos/events.jsonl',
        'INTUTIC_CHAOS_PLAN=/intutic/governance/plan.json',
        'INTUTIC_POLICY_REQUIRED=1',
        'INTUTIC_SNAPSHOT_RULES=/intutic/governance/policy/snapshot.json',
      ].sort(),
    );
    expect(lines.slice(5)).toEqual(['owner=0 mode=444', 'append-refused', 'still-there']);
    expect(out).not.toContain('sk-ant');
  }, 600_000);
});
