// The Python SDK against the TypeScript side: its event lines must pass the real events schema, and
// it shares a repetition's counters and holds with the hook gates (same state file, same lock).
import { execFileSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { chaosEventSchema } from '@intutic/events';
import { buildGates, installGates, planOf, runGate, tempProject } from './helpers.ts';

const PYTHON_DIR = new URL('../python', import.meta.url).pathname;

function python(script: string, env: NodeJS.ProcessEnv): string {
  return execFileSync('python3', ['-c', script], { env: { ...env, PYTHONPATH: PYTHON_DIR, PATH: process.env.PATH }, encoding: 'utf8' });
}

let dist: string;
beforeAll(async () => {
  dist = await buildGates();
});

describe('intutic_clawde.gate', () => {
  it('writes events the schema accepts', () => {
    const p = tempProject();
    p.writePlan(planOf([{ id: 'permission.deny_or_delay', match: { tool: 'deploy' }, options: { mode: 'hold_then_deny', delay_s: 0 } }, { id: 'tool.error', match: { tool: 'search' }, options: { message: 'x'.repeat(900) } }]));
    python(
      `
from intutic_clawde.gate import Gate, GateError
g = Gate(harness="py-agent", project_dir=${JSON.stringify(p.dir)})
for tool, inp in [("deploy", {"e": 1}), ("deploy", {"e": 1}), ("search", {"q": "y" * 5000}), ("shell", {"command": "rm -rf /"}), ("other", None)]:
    try:
        g.record(g.check(tool, inp, server="srv" if tool == "other" else None), ok=True)
    except GateError:
        pass
`,
      p.env,
    );
    const events = p.readEvents();
    expect(new Set(events.map((e) => e.type))).toEqual(new Set(['plan_loaded', 'gate_decision', 'fault_injected', 'tool_call']));
    for (const e of events) expect(chaosEventSchema.safeParse(e).error?.issues ?? []).toEqual([]);
  });

  it('shares counters with the hook gates of the same repetition', async () => {
    const p = tempProject();
    const gates = installGates(dist, p.dir);
    p.writePlan(planOf([{ id: 'tool.error', match: { tool: 'Bash' }, times: 1 }]));
    const hook = await runGate(gates.claude, { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 't1' }, p.env);
    expect(JSON.stringify(hook.json)).toContain('tool error');
    const out = python(
      `
from intutic_clawde.gate import Gate
print(Gate(project_dir=${JSON.stringify(p.dir)}).check("Bash", {"command": "ls"}).decision["decision"])
`,
      p.env,
    );
    expect(out.trim()).toBe('allow');
    expect(p.readEvents().filter((e) => e.type === 'plan_loaded').map((e) => [e.source, e.detail])).toEqual([['gate', 'claude-code'], ['sdk', 'sdk']]);
  });
});
