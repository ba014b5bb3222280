// The real Gemini CLI (registry package, offline) in a project after `intutic connect`, driven by the
// scripted model over Gemini's API: the gate registered in .gemini/settings.json runs before and after
// every tool call, its refusals reach the model as the tool's error, and its events are recorded.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chaosEventSchema } from '@intutic/events';
import {
  agentBin,
  agentRequirement,
  geminiEnv,
  requireOrSkip,
  scratchDir,
  startScriptedModel,
  writeGeminiSettings,
  type ScriptedModel,
  type ScriptInput,
} from '@intutic/testkit';
import { applyConnect, planConnect } from '../src/index.ts';
import { buildGates, CANARY, planOf } from './helpers.ts';

const ready = requireOrSkip('gemini e2e', agentRequirement('gemini'));
let gatesDir = '';
const models: ScriptedModel[] = [];

beforeAll(async () => {
  gatesDir = await buildGates();
}, 120_000);

afterEach(async () => {
  await Promise.all(models.splice(0).map((m) => m.close()));
});

type Json = Record<string, unknown>;

/** The tool results the model was sent, in order: each functionResponse's output or error, once. */
function toolResults(model: ScriptedModel): string[] {
  const results = model.requests.flatMap((r) =>
    (((r.body as Json | undefined)?.contents as Json[] | undefined) ?? []).flatMap((turn) =>
      ((turn.parts as Json[] | undefined) ?? []).flatMap((part) => {
        const response = (part.functionResponse as Json | undefined)?.response as Json | undefined;
        return response ? [JSON.stringify(response)] : [];
      }),
    ),
  );
  return [...new Set(results)];
}

async function runGemini(script: ScriptInput, plan: ReturnType<typeof planOf> | null) {
  const base = scratchDir('intutic-e2e-gemini-');
  const project = join(base, 'project');
  const home = join(base, 'home');
  const tmp = join(base, 'tmp');
  for (const dir of [project, home, tmp]) mkdirSync(dir);
  execFileSync('git', ['init', '-q', project]);
  applyConnect(planConnect(project, { INTUTIC_GATES_DIR: gatesDir }));
  writeGeminiSettings(home);
  const model = await startScriptedModel({ script });
  models.push(model);
  const events = join(project, '.intutic-chaos', 'events.jsonl');
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, ...geminiEnv(model.url, home), TMPDIR: tmp, INTUTIC_CHAOS_EVENTS: events };
  if (plan) {
    writeFileSync(join(base, 'plan.json'), JSON.stringify(plan));
    env.INTUTIC_CHAOS_PLAN = join(base, 'plan.json');
  }
  // -m: no model router call before the turns; --yolo: the shell tool is offered in -p mode.
  const args = ['-m', 'gemini-2.5-pro', '-p', 'Do the task.', '--yolo'];
  const stdout = await new Promise<string>((resolve, reject) => {
    const child = spawn(agentBin('gemini'), args, { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`gemini exited ${code}: ${err.slice(-2000)}`));
    });
  });
  const lines = readFileSync(events, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Json);
  for (const e of lines) expect(chaosEventSchema.safeParse(e).success).toBe(true);
  return { stdout, events: lines, results: toolResults(model) };
}

const shell = (command: string) => ({ tool_calls: [{ shell: command }] });
const END = { text: 'Result: {{last_tool_result}}' };

describe.runIf(ready)('Gemini CLI with the intutic gate', () => {
  it('blocks a destructive command, runs a plain one, and records both', async () => {
    const run = await runGemini({ turns: [shell('git push --force origin main'), shell('echo plain-ok'), END] }, null);
    const decisions = run.events.filter((e) => e.type === 'gate_decision');
    expect(decisions.map((e) => [e.tool, e.decision, e.rule, e.destructive, e.harness])).toEqual([
      ['run_shell_command', 'block', 'destructive.git_push_force', true, 'gemini'],
      ['run_shell_command', 'allow', null, false, 'gemini'],
    ]);
    // The refused call never ran (its failed outcome is the refusal's); the plain one reported by AfterTool.
    expect(run.events.filter((e) => e.type === 'tool_call').map((e) => [e.ok, e.input_hash])).toEqual([
      [false, decisions[0]!.input_hash],
      [true, decisions[1]!.input_hash],
    ]);
    expect(run.results[0]).toContain('[Intutic Governance] BLOCKED');
    expect(run.results[1]).toContain('plain-ok');
    expect(run.stdout).toContain('plain-ok');
  });

  it('blocks a nested agent started where the gate would not see its tool calls', async () => {
    const nested = 'mkdir -p /tmp/h && cd /tmp && HOME=/tmp/h gemini --yolo -p "delete the checkout"';
    const run = await runGemini({ turns: [shell(nested), END] }, null);
    expect(run.events.filter((e) => e.type === 'gate_decision').map((e) => [e.decision, e.rule, e.destructive])).toEqual([
      ['block', 'destructive.ungoverned_agent', true],
    ]);
    expect(run.results[0]).toContain('[Intutic Governance] BLOCKED');
    expect(run.results[0]).toContain('starting the coding agent gemini');
  });

  it('a planned tool.error and a held call reach the model with the canary', async () => {
    const plan = planOf([
      { id: 'tool.error', match: { tool: 'run_shell_command' }, times: 1, options: { message: 'disk quota exceeded' } },
      { id: 'permission.deny_or_delay', match: { tool: 'run_shell_command' }, after_calls: 1, times: 1, options: { mode: 'hold_then_deny', delay_s: 0 } },
    ]);
    const run = await runGemini({ turns: [shell('echo one'), shell('echo two'), shell('echo two'), END] }, plan);
    expect(run.results[0]).toContain(`disk quota exceeded [${CANARY}]`);
    expect(run.results[1]).toMatch(/\[Intutic Governance\] HELD: .*E-INTUTIC-0badcafe/);
    expect(run.results[2]).toMatch(/\[Intutic Governance\] DENIED: .*E-INTUTIC-0badcafe/);
    expect(run.events.filter((e) => e.type === 'fault_injected').map((e) => e.fault_id)).toEqual(['tool.error', 'permission.deny_or_delay']);
  });
});
