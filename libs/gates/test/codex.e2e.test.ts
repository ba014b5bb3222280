// The real Codex binary (registry package, offline) in a project after `intutic connect`, driven by
// the scripted model over the Responses API. Codex runs project hooks only for a trusted project
// with trusted hooks; automation says so with `--trust --dangerously-bypass-hook-trust`.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { chaosEventSchema } from '@intutic/events';
import { requireOrSkip, scratchDir, type ScriptedModel, type ScriptInput, startScriptedModel } from '@intutic/testkit';
import { applyConnect, planConnect } from '../src/index.ts';
import { buildGates, CANARY, planOf } from './helpers.ts';

const REPO = new URL('../../..', import.meta.url).pathname;
let codex = '';
let gatesDir = '';
let available = false;
let unavailableReason = '';
const models: ScriptedModel[] = [];

// Installing the agent takes minutes, so it happens here rather than when the file is collected:
// requireOrSkip fails the suite under CI and otherwise says why, and each test then shows as skipped.
beforeAll(async () => {
  let bin = '';
  let reason = '';
  try {
    const out = execFileSync('bash', [join(REPO, 'scripts/setup/agents.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 600_000 });
    bin = /^codex=(.+)$/m.exec(out)?.[1] ?? '';
    if (!bin) reason = 'scripts/setup/agents.sh printed no codex path';
  } catch (error) {
    reason = `scripts/setup/agents.sh failed: ${(error as Error).message}`;
  }
  available = requireOrSkip('codex e2e', { ok: bin !== '', reason });
  unavailableReason = reason;
  codex = bin;
  gatesDir = await buildGates();
}, 900_000);
beforeEach((ctx) => ctx.skip(!available, unavailableReason));

afterEach(async () => {
  await Promise.all(models.splice(0).map((m) => m.close()));
});

async function runCodex(script: ScriptInput, plan: ReturnType<typeof planOf> | null) {
  const base = scratchDir('intutic-e2e-codex-');
  const project = join(base, 'project');
  const codexHome = join(base, 'codex-home');
  mkdirSync(project);
  mkdirSync(codexHome);
  execFileSync('git', ['init', '-q', project]);
  applyConnect(planConnect(project, { INTUTIC_GATES_DIR: gatesDir }));
  const model = await startScriptedModel({ script });
  models.push(model);
  writeFileSync(
    join(codexHome, 'config.toml'),
    `model = "gpt-test"\nmodel_provider = "scripted"\n[model_providers.scripted]\nname = "scripted"\nbase_url = "${model.url}/v1"\nwire_api = "responses"\nsupports_websockets = false\nenv_key = "OPENAI_API_KEY"\n[features]\nhooks = true\n`,
  );
  const events = join(project, '.intutic-chaos', 'events.jsonl');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: base,
    CODEX_HOME: codexHome,
    OPENAI_API_KEY: 'sk-test-not-a-key',
    INTUTIC_CHAOS_EVENTS: events,
  };
  if (plan) {
    writeFileSync(join(base, 'plan.json'), JSON.stringify(plan));
    env.INTUTIC_CHAOS_PLAN = join(base, 'plan.json');
  }
  const stdout = await new Promise<string>((resolve, reject) => {
    const child = spawn(
      codex,
      ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', '--trust', '--dangerously-bypass-hook-trust', 'Do the task.'],
      { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`codex exited ${code}: ${err.slice(-2000)}`));
    });
  });
  const outputs = model.requests.flatMap((r) =>
    ((r.body as { input?: { type?: string; output?: unknown }[] } | undefined)?.input ?? [])
      .filter((i) => i.type === 'function_call_output')
      .map((i) => String(i.output)),
  );
  const lines = readFileSync(events, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  for (const e of lines) expect(chaosEventSchema.safeParse(e).success).toBe(true);
  return { stdout, events: lines, outputs: [...new Set(outputs)] };
}

const shell = (command: string) => ({ tool_calls: [{ shell: command }] });
const END = { text: 'Result: {{last_tool_result}}' };

describe('Codex with the intutic gate', () => {
  it('blocks a destructive command, runs a plain one, and records both', async () => {
    const run = await runCodex({ turns: [shell('git push --force origin main'), shell('echo plain-ok'), END] }, null);
    const decisions = run.events.filter((e) => e.type === 'gate_decision');
    expect(decisions.map((e) => [e.decision, e.rule, e.destructive, e.harness])).toEqual([
      ['block', 'destructive.git_push_force', true, 'codex'],
      ['allow', null, false, 'codex'],
    ]);
    expect(run.events.filter((e) => e.type === 'tool_call').map((e) => [e.ok, e.call_id])).toEqual([
      [false, decisions[0]!.call_id],
      [true, decisions[1]!.call_id],
    ]);
    expect(run.outputs[0]).toContain('[Intutic Governance] BLOCKED');
    expect(run.stdout).toContain('plain-ok');
  });

  it('a planned tool.error and a held call reach the model with the canary', async () => {
    const plan = planOf([
      { id: 'tool.error', match: { tool: 'Bash' }, times: 1, options: { message: 'disk quota exceeded' } },
      { id: 'permission.deny_or_delay', match: { tool: 'Bash' }, after_calls: 1, times: 1, options: { mode: 'hold_then_deny', delay_s: 0 } },
    ]);
    const run = await runCodex({ turns: [shell('echo one'), shell('echo two'), shell('echo two'), END] }, plan);
    expect(run.outputs[0]).toContain(`disk quota exceeded [${CANARY}]`);
    expect(run.outputs[1]).toMatch(/\[Intutic Governance\] HELD: .*E-INTUTIC-0badcafe/);
    expect(run.outputs[2]).toMatch(/\[Intutic Governance\] DENIED: .*E-INTUTIC-0badcafe/);
    expect(run.events.filter((e) => e.type === 'fault_injected').map((e) => e.fault_id)).toEqual(['tool.error', 'permission.deny_or_delay']);
  });
});
