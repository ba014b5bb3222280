// Governance is out of the agent's reach, end to end: a real `chaos run` (built CLI, Redis, engine,
// -node image, proxy, carry-in) of a project after `intutic connect` and `intutic policy init`, whose
// agent is fixtures/agents/governance-probe.sh. As the sandbox's unprivileged user it tries to edit,
// write or rename a new file over, chmod, chown and delete every carried-in governance file (hook
// settings, gate script, policy snapshot, bypass list, the faulted repetition's plan) and to rename,
// replace or chmod every directory on the way to one — /work itself included — each beside the same
// operation on an ordinary file in /work, which must succeed. Then the real Claude Code gate, run by
// the hook command the carried-in settings name, is handed `rm -rf /`: still blocked.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerRequirement, redisRequirement, requireOrSkip } from '@intutic/testkit';
import { GOVERNANCE_MOUNT } from '@intutic/sandbox';
import { SANDBOX_GOVERNANCE_DIR } from '@intutic/workspace';
import { nodeSandboxWorld, NODE_IMAGE as IMAGE, type World } from './fixtures/harness.ts';
import { readReportFile } from './fixtures/reports.ts';

const ok = requireOrSkip('governance out of reach', await redisRequirement()) && requireOrSkip('governance out of reach', dockerRequirement());

const FILES = ['settings', 'settings_local', 'codex_hooks', 'cursor_hooks', 'gate', 'snapshot', 'bypasses'];
const OPERATIONS = ['edit', 'write_over', 'rename_onto', 'chmod', 'chown', 'chmod_dir', 'replace_dir', 'delete'];
const DIRS = [
  '/work',
  '/work/.claude',
  '/work/.codex',
  '/work/.cursor',
  '/work/.intutic',
  '/work/.intutic/hooks',
  '/work/.intutic-chaos',
  '/intutic/governance/policy',
  '/intutic/governance',
  '/intutic',
];

interface Probed {
  results: Map<string, { status: string; detail: string }>;
  intact: Map<string, string>;
  gates: Map<string, { code: number; stdout: string; stderr: string }>;
  env: Map<string, string>;
  done: boolean;
}

function parse(stdout: string): Probed {
  const probed: Probed = { results: new Map(), intact: new Map(), gates: new Map(), env: new Map(), done: false };
  for (const line of stdout.split('\n')) {
    const [kind, name = '', ...rest] = line.split(' ');
    if (kind === 'RESULT') probed.results.set(name, { status: rest[0] ?? '', detail: rest.slice(1).join(' ') });
    if (kind === 'INTACT') probed.intact.set(name, rest[0] ?? '');
    if (kind === 'ENV') probed.env.set(name, rest.join(' '));
    if (kind === 'GATE')
      probed.gates.set(name, {
        code: Number(rest[0]),
        stdout: Buffer.from(rest[1] ?? '', 'base64').toString(),
        stderr: Buffer.from(rest[2] ?? '', 'base64').toString(),
      });
    if (kind === 'DONE') probed.done = true;
  }
  return probed;
}

let world: World;
const probed: Record<'baseline' | 'faulted', Probed> = {} as never;
beforeAll(async () => {
  if (!ok) return;
  world = await nodeSandboxWorld('governance');
  // No destructive_attempt abort: the probe's `rm -rf /` goes to the gate on purpose, in both repetitions.
  const file = world.experiment('registry-down', { agent: 'bash agents/governance-probe.sh', verify: 'true', repeat: 1, abort: [{ cost_usd_above: 2 }] });
  const out = join(world.root, 'governance.json');
  const result = await world.cli(['chaos', 'run', file, '--sandbox-image', IMAGE, '--out', out]);
  const report = readReportFile(out);
  for (const rep of report.repetitions) {
    const stdout = readFileSync(rep.artifacts.agent_output, 'utf8');
    process.stderr.write(
      `--- ${rep.kind} repetition (error: ${rep.error}):\n${stdout
        .split('\n')
        .filter((l) => !l.startsWith('GATE'))
        .join('\n')}\n`,
    );
    probed[rep.kind] = parse(stdout);
  }
  expect(Object.keys(probed).sort(), result.stderr).toEqual(['baseline', 'faulted']);
}, 1_800_000);
afterAll(async () => {
  await world?.close();
});

describe.skipIf(!ok)('an agent trying to change its own governance, as the sandbox user', () => {
  const reps = ['baseline', 'faulted'] as const;
  const files = (rep: (typeof reps)[number]) => (rep === 'faulted' ? [...FILES, 'plan'] : FILES);

  it('the workspace sees the paths it should: the policy and plan under /intutic/governance, a snapshot required', () => {
    expect(SANDBOX_GOVERNANCE_DIR).toBe(GOVERNANCE_MOUNT);
    for (const rep of reps) {
      expect(probed[rep].done, `${rep} ran to the end`).toBe(true);
      expect(probed[rep].env.get('INTUTIC_SNAPSHOT_RULES')).toBe('/intutic/governance/policy/snapshot-rules.json');
      expect(probed[rep].env.get('INTUTIC_APPROVED_BYPASSES')).toBe('/intutic/governance/policy/approved-bypasses.json');
      expect(probed[rep].env.get('INTUTIC_POLICY_REQUIRED')).toBe('1');
      expect(probed[rep].env.get('HOOK_COMMAND')).toBe('node /work/.intutic/hooks/claude-code-check.cjs');
    }
    expect(probed.faulted.env.get('INTUTIC_CHAOS_PLAN')).toBe('/intutic/governance/plan.json');
    expect(probed.baseline.env.get('INTUTIC_CHAOS_PLAN')).toBe('');
  });

  it('every governance file is there to be attacked (a typo would make every probe below pass)', () => {
    for (const rep of reps)
      for (const file of [...files(rep), 'control']) expect(probed[rep].results.get(`${file}.present`)?.status, `${rep} ${file}`).toBe('ok');
  });

  it.each(OPERATIONS)('control: %s works on an ordinary file in /work', (operation) => {
    for (const rep of reps) {
      const got = probed[rep].results.get(`control.${operation}`);
      expect(got?.status, `${rep}: ${got?.detail}`).toBe('ok');
    }
  });

  it.each(OPERATIONS)('%s is refused for every governance file', (operation) => {
    for (const rep of reps) {
      for (const file of files(rep)) {
        const got = probed[rep].results.get(`${file}.${operation}`);
        expect(got?.status, `${rep} ${file}.${operation}: ${got?.detail}`).toBe('blocked');
      }
    }
  });

  it('no directory on the way to governance can be renamed or chmod-ed, /work included; an ordinary one can', () => {
    for (const rep of reps) {
      for (const dir of DIRS) {
        for (const operation of ['rename', 'chmod']) {
          const got = probed[rep].results.get(`dir:${dir}.${operation}`);
          expect(got?.status, `${rep} ${dir} ${operation}: ${got?.detail}`).toBe('blocked');
        }
      }
      expect(probed[rep].results.get('control_dir.rename')?.status).toBe('ok');
      expect(probed[rep].results.get('control_dir.chmod')?.status).toBe('ok');
    }
  });

  it('every governance file is unchanged afterwards, and the events directory and the gates’ log stay writable', () => {
    for (const rep of reps) {
      for (const file of files(rep)) expect(probed[rep].intact.get(file), `${rep} ${file}`).toBe('yes');
      expect(probed[rep].results.get('writable.events_dir')?.status).toBe('ok');
      expect(probed[rep].results.get('writable.gates_log')?.status).toBe('ok');
    }
  });

  it('the real gate still blocks rm -rf / by the destructive tier, and allows ls (it decides, it does not just fail)', () => {
    for (const rep of reps) {
      const allow = probed[rep].gates.get('allow_ls');
      expect(allow, rep).toMatchObject({ code: 0, stdout: '' });
      const destructive = probed[rep].gates.get('destructive');
      expect(destructive?.code, `${rep}: ${destructive?.stderr}`).toBe(0);
      const answer = JSON.parse(destructive!.stdout) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } };
      expect(answer.hookSpecificOutput.permissionDecision).toBe('deny');
      expect(answer.hookSpecificOutput.permissionDecisionReason).toMatch(/^\[Intutic Governance\] BLOCKED: .*destructive\./);
    }
  });

  it('a snapshot that went missing makes the gate refuse every call, naming the file', () => {
    for (const rep of reps) {
      const missing = probed[rep].gates.get('missing_snapshot');
      expect(missing?.code, rep).toBe(2);
      expect(missing?.stderr).toContain('BLOCKED');
      expect(missing?.stderr).toContain('/intutic/governance/policy/gone.json: the policy snapshot is missing');
    }
  });

  it('chmod -R of /work reaches nothing the gate needs: rm -rf / is still refused', () => {
    for (const rep of reps) {
      const after = probed[rep].gates.get('destructive_after_chmod_r');
      expect(after, rep).toBeDefined();
      // Denied by the tier, or refused outright when the events file it appends to was chmod-ed too: blocked either way.
      const denied = after!.code === 0 && after!.stdout.includes('"permissionDecision":"deny"');
      expect(denied || (after!.code === 2 && after!.stderr.includes('BLOCKED')), `${after!.code} ${after!.stdout} ${after!.stderr}`).toBe(true);
    }
  });

  it('moving the events directory to /tmp cannot take it (nor the policy or plan) away', () => {
    expect(probed.faulted.results.get('dir:/work/.intutic-chaos.move_to_tmp')?.status).toBe('blocked');
    expect(probed.faulted.results.get('after_move.chaos_dir_still_there')?.status).toBe('ok');
    for (const file of files('faulted')) expect(probed.faulted.intact.get(`after_move:${file}`), file).toBe('yes');
    expect(probed.faulted.gates.get('destructive_after_move')?.stdout).toContain('"permissionDecision":"deny"');
  });
});
