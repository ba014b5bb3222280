// The real agent binaries, offline, through the proxy to the scripted model: Claude Code runs the
// Bash call the model scripts and prints the final text, Codex does the same over the Responses API,
// and Gemini CLI over Gemini's API. The shell computes part of the output ($((6*7))), so the final text can only contain it if the
// tool really ran and its result went back through the proxy. Each call is recorded with its cost.
// Given a stand-in key, as in a repetition's sandbox, each agent works the same while the upstream
// receives only the real key the proxy swapped in.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  agentBin,
  agentRequirement,
  claudeEnv,
  codexConfig,
  geminiEnv,
  requireOrSkip,
  scratchDir,
  writeGeminiSettings,
  type ScriptInput,
} from '@intutic/testkit';
import { planWith, startRig, type Rig } from './llm-fixtures.ts';

const script: ScriptInput = {
  turns: [
    { text: 'Let me run that.', tool_calls: [{ shell: 'echo intutic-e2e-$((6*7))' }] },
    {
      when: { last_tool_result_matches: 'intutic-e2e-42' },
      then: { text: 'The command printed intutic-e2e-42 as expected.' },
      else: { text: 'The command did not print what I expected: {{last_tool_result}}' },
    },
  ],
};

// Shaped as the runner makes stand-ins and as the providers' keys look.
const ANTHROPIC_STAND_IN = 'sk-ant-api03-intutic-00112233445566778899aabbccddeeff0011223344556677';
const OPENAI_STAND_IN = 'sk-intutic-8899aabbccddeeff00112233445566778899aabbccddeeff00112233';
const REAL_ANTHROPIC = `sk-ant-api03-${'Ab3_x-Z9'.repeat(11)}AB`;
const REAL_OPENAI = `sk-proj-${'Qr7-y_K2'.repeat(15)}`;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(bin: string, args: string[], env: Record<string, string>, cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(bin, args, { cwd, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env }, timeout: 240_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
    child.stdin?.end(); // claude -p waits for stdin otherwise
  });
}

let rig: Rig | undefined;
const roots: string[] = [];
afterEach(async () => {
  await rig?.close();
  for (const dir of [...(rig ? [dirname(rig.eventsPath)] : []), ...roots.splice(0)]) rmSync(dir, { recursive: true, force: true });
  rig = undefined;
});

function workdir(): { cwd: string; home: string } {
  const root = scratchDir('intutic-agent-e2e-');
  roots.push(root);
  const cwd = join(root, 'project');
  const home = join(root, 'home');
  mkdirSync(cwd);
  mkdirSync(home);
  return { cwd, home };
}

describe.runIf(requireOrSkip('claude through the proxy', agentRequirement('claude')))('Claude Code through the proxy', () => {
  it('runs the scripted Bash call and prints the final text; every model call is recorded and priced', async () => {
    rig = await startRig(script);
    const { cwd, home } = workdir();
    const result = await run(agentBin('claude'), ['-p', 'Print the magic number with bash.', '--allowedTools', 'Bash'], claudeEnv(rig.proxy.url, home), cwd);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe('The command printed intutic-e2e-42 as expected.');
    const calls = await rig.calls();
    expect(calls.length).toBeGreaterThanOrEqual(2);
    for (const call of calls) {
      expect(call).toMatchObject({ provider: 'anthropic', endpoint: '/v1/messages', status: 200, stream: true, priced_as_unknown: false });
      expect(call.cost_usd).toBeGreaterThan(0);
    }
    // The key Claude Code sent reached the upstream and nothing else.
    expect(rig.model.requests.every((r) => r.headers['x-api-key'] === 'sk-ant-scripted-model')).toBe(true);
    expect(rig.log.lines.join('') + readFileSync(rig.eventsPath, 'utf8')).not.toContain('sk-ant-scripted-model');
  });

  it('meets an injected 429 (retries past it, as Claude Code does) and the fault is recorded', async () => {
    rig = await startRig(script, { plan: planWith([{ id: 'llm.rate_limit', times: 1, options: { retry_after_s: 0 } }]) });
    const { cwd, home } = workdir();
    const result = await run(agentBin('claude'), ['-p', 'Print the magic number with bash.', '--allowedTools', 'Bash'], claudeEnv(rig.proxy.url, home), cwd);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('intutic-e2e-42');
    expect(await rig.injections()).toMatchObject([{ fault_id: 'llm.rate_limit', retry_after_s: 0 }]);
    expect((await rig.calls())[0]).toMatchObject({ status: 429, cost_usd: 0 });
  });
});

describe.runIf(requireOrSkip('claude with a stand-in key', agentRequirement('claude')))('Claude Code with a stand-in key', () => {
  it('takes the stand-in as its key; the upstream gets only the real one', async () => {
    rig = await startRig(script, { keys: { anthropic: { standIn: ANTHROPIC_STAND_IN, real: REAL_ANTHROPIC } } });
    const { cwd, home } = workdir();
    const result = await run(
      agentBin('claude'),
      ['-p', 'Print the magic number with bash.', '--allowedTools', 'Bash'],
      { ...claudeEnv(rig.proxy.url, home), ANTHROPIC_API_KEY: ANTHROPIC_STAND_IN },
      cwd,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe('The command printed intutic-e2e-42 as expected.');
    expect(rig.model.requests.length).toBeGreaterThanOrEqual(2);
    for (const request of rig.model.requests) {
      expect(request.headers['x-api-key'] ?? request.headers.authorization).toMatch(new RegExp(`^(Bearer )?${REAL_ANTHROPIC}$`));
      expect(JSON.stringify(request.headers)).not.toContain(ANTHROPIC_STAND_IN);
    }
    expect(rig.log.lines.join('') + readFileSync(rig.eventsPath, 'utf8')).not.toContain(REAL_ANTHROPIC);
  });
});

describe.runIf(requireOrSkip('codex through the proxy', agentRequirement('codex')))('Codex through the proxy (Responses API)', () => {
  it('runs the scripted exec_command call and prints the final text', async () => {
    rig = await startRig(script);
    const { cwd, home } = workdir();
    const codexHome = join(home, '.codex');
    mkdirSync(codexHome);
    writeFileSync(join(codexHome, 'config.toml'), codexConfig(rig.proxy.url));
    const result = await run(
      agentBin('codex'),
      ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', 'Print the magic number with the shell.'],
      { HOME: home, CODEX_HOME: codexHome, OPENAI_API_KEY: 'sk-scripted-model' },
      cwd,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('The command printed intutic-e2e-42 as expected.');
    const calls = await rig.calls();
    expect(calls.length).toBeGreaterThanOrEqual(2);
    for (const call of calls)
      expect(call).toMatchObject({ provider: 'openai', endpoint: '/v1/responses', status: 200, stream: true, model: 'gpt-5-codex', priced_as_unknown: false });
    expect(rig.model.requests.every((r) => r.headers.authorization === 'Bearer sk-scripted-model')).toBe(true);
  });
});

describe.runIf(requireOrSkip('codex with a stand-in key', agentRequirement('codex')))('Codex with a stand-in key', () => {
  it('takes the stand-in as its key; the upstream gets only the real one', async () => {
    rig = await startRig(script, { keys: { openai: { standIn: OPENAI_STAND_IN, real: REAL_OPENAI } } });
    const { cwd, home } = workdir();
    const codexHome = join(home, '.codex');
    mkdirSync(codexHome);
    writeFileSync(join(codexHome, 'config.toml'), codexConfig(rig.proxy.url));
    const result = await run(
      agentBin('codex'),
      ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', 'Print the magic number with the shell.'],
      { HOME: home, CODEX_HOME: codexHome, OPENAI_API_KEY: OPENAI_STAND_IN },
      cwd,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('The command printed intutic-e2e-42 as expected.');
    expect(rig.model.requests.length).toBeGreaterThanOrEqual(2);
    expect(rig.model.requests.every((r) => r.headers.authorization === `Bearer ${REAL_OPENAI}`)).toBe(true);
    expect(rig.log.lines.join('') + readFileSync(rig.eventsPath, 'utf8')).not.toContain(REAL_OPENAI);
  });
});

// Gemini CLI refuses `$(` in a shell command (its command-substitution guard): the shell computes with let.
const geminiScript: ScriptInput = JSON.parse(JSON.stringify(script).replace('echo intutic-e2e-$((6*7))', 'let n=6*7; echo intutic-e2e-$n')) as ScriptInput;
const GEMINI_STAND_IN = 'AIzaSy-intutic-00112233445566778899aabbccddeeff0011223344556677';
const REAL_GEMINI = `AIzaSy${'Gm4_k-P8'.repeat(4)}xy`;

/** Gemini CLI in a fresh HOME with its settings, pointed at the proxy; -m skips its model router. */
function runGemini(extraEnv: Record<string, string> = {}): Promise<Run> {
  const { cwd, home } = workdir();
  writeGeminiSettings(home);
  const tmp = join(home, 'tmp'); // where it writes its error reports
  mkdirSync(tmp);
  const args = ['-m', 'gemini-2.5-pro', '-p', 'Print the magic number with the shell.', '--yolo'];
  return run(agentBin('gemini'), args, { ...geminiEnv(rig!.proxy.url, home), TMPDIR: tmp, ...extraEnv }, cwd);
}

describe.runIf(requireOrSkip('gemini through the proxy', agentRequirement('gemini')))("Gemini CLI through the proxy (Gemini's API)", () => {
  it('runs the scripted run_shell_command call and prints the final text; every model call is recorded and priced', async () => {
    rig = await startRig(geminiScript);
    const result = await runGemini();
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('The command printed intutic-e2e-42 as expected.');
    const calls = await rig.calls();
    expect(calls.length).toBeGreaterThanOrEqual(2);
    for (const call of calls) {
      expect(call).toMatchObject({
        provider: 'gemini',
        endpoint: '/v1beta/models/{model}:streamGenerateContent',
        model: 'gemini-2.5-pro',
        status: 200,
        stream: true,
        priced_as_unknown: false,
      });
      expect(call.cost_usd).toBeGreaterThan(0);
    }
  });

  it('meets an injected 429 (retries past it, as Gemini CLI does) and the fault is recorded', async () => {
    rig = await startRig(geminiScript, { plan: planWith([{ id: 'llm.rate_limit', times: 1, options: { retry_after_s: 1 } }]) });
    const result = await runGemini();
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('intutic-e2e-42');
    expect(await rig.injections()).toMatchObject([{ fault_id: 'llm.rate_limit', retry_after_s: 1 }]);
    expect((await rig.calls())[0]).toMatchObject({ provider: 'gemini', status: 429, cost_usd: 0 });
  });

  it('takes a stand-in as its key; the upstream gets only the real one', async () => {
    rig = await startRig(geminiScript, { keys: { gemini: { standIn: GEMINI_STAND_IN, real: REAL_GEMINI } } });
    const result = await runGemini({ GEMINI_API_KEY: GEMINI_STAND_IN });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('The command printed intutic-e2e-42 as expected.');
    expect(rig.model.requests.length).toBeGreaterThanOrEqual(2);
    for (const request of rig.model.requests) {
      expect(request.headers['x-goog-api-key']).toBe(REAL_GEMINI);
      expect(JSON.stringify(request.headers) + request.url).not.toContain(GEMINI_STAND_IN);
    }
    expect(rig.log.lines.join('') + readFileSync(rig.eventsPath, 'utf8')).not.toContain(REAL_GEMINI);
  });
});
