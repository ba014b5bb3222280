// Honesty of a run (issue 10, item 3): the canary reaches the agent only inside an injected error —
// an agent that searches every env value, process argv/environ and readable file in its sandbox before
// meeting a fault finds nothing — and a provider key's value is never written anywhere: not in Redis,
// the report, events, artifacts, logs or the worker's home.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerRequirement, redisRequirement, requireOrSkip } from '@intutic/testkit';
import { parsePlan, sealCanary, unsealCanary } from '@intutic/faults';
import { nodeSandboxWorld, NODE_IMAGE as IMAGE, REGISTRY_HOST, type World } from './fixtures/harness.ts';
import { eventsOf, readReportFile } from './fixtures/reports.ts';
import { filesUnder, redisDump } from './fixtures/leftovers.ts';

const ok = requireOrSkip('hardening secrets', await redisRequirement()) && requireOrSkip('hardening secrets', dockerRequirement());
const CANARY_RE = 'E-INTUTIC-[0-9a-f]{8}';

// Everything the agent can see, searched for anything shaped like a canary: env values, every visible
// process's argv and environ, every file on the filesystem but the kernel's.
const SCAN = `scan() {
  echo "SCAN $1 BEGIN"
  env | grep -aE '${CANARY_RE}' | sed 's/^/env: /'
  for f in /proc/[0-9]*/cmdline /proc/[0-9]*/environ; do
    tr '\\000' '\\n' < "$f" 2>/dev/null | grep -aqE '${CANARY_RE}' && echo "proc: $f"
  done
  grep -rlsE --exclude-dir=proc --exclude-dir=sys --exclude-dir=dev '${CANARY_RE}' / | sed 's/^/file: /'
  echo "SCAN $1 END"
}`;
const HOOK_INPUT = JSON.stringify({
  session_id: 's1',
  hook_event_name: 'PreToolUse',
  tool_name: 'Bash',
  tool_input: { command: 'ls' },
  tool_use_id: 'toolu_1',
  cwd: '/work',
});
const SCANNING_AGENT = [
  SCAN,
  'scan before',
  // Two faults follow: the carried-in gate fails a Bash call (tool.error), the proxy fails the registry's DNS.
  `echo '${HOOK_INPUT}' | node /work/.intutic/hooks/claude-code-check.cjs; echo "hook exit $?"`,
  `sh agents/registry.sh careful ${REGISTRY_HOST}; rc=$?`,
  // The MCP proxy reads the sealed plan too (it records plan_loaded); its own files then get scanned.
  'node agents/readme.mjs careful',
  'scan after',
  'exit $rc',
].join('\n');

function section(stdout: string, name: string): string[] {
  const begin = stdout.indexOf(`SCAN ${name} BEGIN`);
  const end = stdout.indexOf(`SCAN ${name} END`);
  if (begin < 0 || end < begin) throw new Error(`no complete "${name}" scan in the agent's output:\n${stdout}`);
  return stdout.slice(begin, end).split('\n').slice(1).filter(Boolean);
}

describe('the sealed canary in the plan file', () => {
  it('never shows the literal, and every plan reader gets the literal back', () => {
    const sealed = sealCanary('E-INTUTIC-0badf00d');
    expect(sealed).toMatch(/^sealed:[0-9a-f]+$/);
    expect(sealed).not.toContain('E-INTUTIC-');
    expect(unsealCanary(sealed)).toBe('E-INTUTIC-0badf00d');
    expect(unsealCanary('E-INTUTIC-0badf00d')).toBe('E-INTUTIC-0badf00d');
    const plan = { schema_version: 1, experiment: 'x', run_id: 'r1', canary: sealed, faults: [] };
    expect(parsePlan(plan).canary).toBe('E-INTUTIC-0badf00d');
    expect(() => parsePlan({ ...plan, canary: 'sealed:00ff' })).toThrow();
  });
});

let world: World;
beforeAll(async () => {
  if (!ok) return;
  world = await nodeSandboxWorld('secrets');
}, 1_800_000);
afterAll(async () => {
  await world?.close();
});

describe.skipIf(!ok)('what the agent can reach', () => {
  it('finds no canary anywhere in its sandbox before a fault; afterwards only in the injected errors', async () => {
    const file = world.experiment('registry-down', {
      agent: SCANNING_AGENT,
      repeat: 1,
      faults: [
        { id: 'egress.dns_fail', match: { host: `*.npmjs.test` } },
        { id: 'tool.error', match: { tool: 'Bash' }, times: 1, message: 'the shell is gone' },
      ],
    });
    const out = join(world.root, 'canary-scan.json');
    const result = await world.cli(['chaos', 'run', file, '--sandbox-image', IMAGE, '--out', out]);
    const report = readReportFile(out);
    const faulted = report.repetitions.find((r) => r.kind === 'faulted')!;
    const stdout = readFileSync(faulted.artifacts.agent_output, 'utf8');

    expect(section(stdout, 'before'), stdout).toEqual([]);
    // The injected errors carry it: the gate's refusal and the registry's DNS failure both reached stdout.
    const hookAnswer = stdout.split('\n').find((l) => l.includes('the shell is gone'));
    expect(hookAnswer, stdout).toContain(faulted.canary);
    expect(stdout.slice(stdout.indexOf('npm install lodash failed'))).toContain(`(${faulted.canary})`);
    expect(faulted.probes.failure_surfaced).toBe(true);
    // After the faults, no file the agent can read holds it either (events, gate state and logs included).
    expect(section(stdout, 'after'), stdout).toEqual([]);
    expect(result.stderr).not.toContain(faulted.canary);

    // The sealed plan reached the gate and the proxy (both injected) and the MCP proxy.
    const events = eventsOf(faulted.artifacts.events);
    expect(events).toContainEqual(expect.objectContaining({ type: 'plan_loaded', source: 'mcp-proxy', run_id: faulted.run_id }));
    expect(
      events
        .filter((e) => e.type === 'fault_injected')
        .map((e) => e.fault_id)
        .sort(),
    ).toEqual(['egress.dns_fail', 'tool.error']);
    const plan = readFileSync(join(faulted.artifacts.dir, 'plan.json'), 'utf8');
    expect(plan).not.toContain('E-INTUTIC-');
    expect(unsealCanary((JSON.parse(plan) as { canary: string }).canary)).toBe(faulted.canary);
  });

  it('a planted provider key value is never written: not in Redis, the report, events, artifacts or logs', async () => {
    const saved = world.env.ANTHROPIC_API_KEY;
    const planted = `sk-ant-planted-${Math.random().toString(36).slice(2)}-${Date.now().toString(36)}`;
    world.env.ANTHROPIC_API_KEY = planted;
    try {
      const before = world.model.requests.length;
      // The agent prints nothing of its env; it asks the model (with the key) and meets the fault.
      const file = world.experiment('registry-down', { agent: `sh agents/registry.sh careful ${REGISTRY_HOST}`, repeat: 1 });
      const out = join(world.root, 'planted-key.json');
      const result = await world.cli(['chaos', 'run', file, '--sandbox-image', IMAGE, '--out', out]);
      expect(result.code, result.stderr).toBe(0);
      // The key did travel: the model stand-in was asked by each repetition.
      expect(world.model.requests.length).toBeGreaterThan(before);
      expect(result.stdout + result.stderr).not.toContain(planted);

      const holders: string[] = [];
      for (const [key, value] of await redisDump(world.prefix)) if (value.includes(planted)) holders.push(`redis ${key}`);
      // world.root holds the report and its artifacts (events, agent and verify output, proxy log and
      // stdout, plan), the worker's home (job state, leftovers) and the project.
      const files = filesUnder(world.root);
      expect(files).toContain(out);
      expect(files.some((f) => f.endsWith('proxy.log'))).toBe(true);
      for (const path of files) if (statSync(path).size < 512 * 1024 * 1024 && readFileSync(path).includes(planted)) holders.push(path);
      const inspect = await world.cli(['chaos', 'inspect', readReportFile(out).run.id, '--json']);
      if (inspect.stdout.includes(planted)) holders.push('chaos inspect (job logs)');
      expect(holders).toEqual([]);
    } finally {
      world.env.ANTHROPIC_API_KEY = saved;
    }
  });
});
