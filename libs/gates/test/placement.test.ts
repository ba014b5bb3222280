// Mutating faults never apply outside a sandbox. None of a gate's own kinds is mutating (tool.error
// and permission.deny_or_delay are fail-safe), so on the host a gate keeps injecting its faults and
// warns of nothing; the plan it keeps has the mutating faults (other components') left out there.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkCall, openGate } from '../src/index.ts';
import { planOf, tempProject } from './helpers.ts';

const plan = planOf([
  { id: 'inject.tool_result', match: { tool: 'Bash' }, options: { payload: 'x' } },
  { id: 'permission.deny_or_delay', match: { tool: 'Bash' }, options: { mode: 'deny' } },
]);

describe('where a gate applies faults', () => {
  it('on the host (no sandbox marker): the fail-safe fault is injected, the mutating one is out of its plan', () => {
    const p = tempProject();
    p.writePlan(plan);
    const gate = openGate({ source: 'gate', harness: 'claude-code', env: p.env, projectDir: p.dir, logDir: join(p.dir, '.intutic', 'events') });
    expect(gate.plan?.faults.map((f) => f.id)).toEqual(['permission.deny_or_delay']);
    expect(gate.refused).toBeNull();
    expect(checkCall(gate, { tool: 'Bash', input: { command: 'ls' } })).toMatchObject({ outcome: 'refuse', code: 'PERMISSION_DENIED' });
    expect(p.readEvents().filter((e) => e.type === 'warning')).toEqual([]);
  });

  it('in a sandbox the plan is kept whole', () => {
    const p = tempProject();
    p.writePlan(plan);
    const gate = openGate({
      source: 'gate',
      harness: 'claude-code',
      env: p.env,
      projectDir: p.dir,
      logDir: null,
      placement: { mutatingAllowed: true, why: 'test' },
    });
    expect(gate.plan?.faults.map((f) => f.id)).toEqual(['inject.tool_result', 'permission.deny_or_delay']);
  });
});
