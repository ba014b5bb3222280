// The real Gemini CLI, offline, against the scripted model speaking Gemini's wire format: it runs the
// run_shell_command call the model scripts and prints the final text. The shell computes part of the
// output (6*7), so the final text can only contain it if the tool really ran and its result came back
// as a functionResponse. With its default "auto" model the CLI first asks a router for a JSON answer
// (a non-stream generateContent), which must come back as JSON it accepts; with -m it goes straight
// to streamGenerateContent.
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  agentBin,
  agentRequirement,
  geminiEnv,
  readGemini,
  requireOrSkip,
  scratchDir,
  startScriptedModel,
  writeGeminiSettings,
  type ScriptedModel,
  type ScriptInput,
} from '../src/index.ts';

// The CLI refuses a command holding `$(` (its command-substitution guard counts `$((6*7))` in), so
// the shell computes with `let`; the second test shows the refusal reaching the model.
const script = (command: string): ScriptInput => ({
  turns: [
    { text: 'Let me run that.', tool_calls: [{ shell: command }] },
    {
      when: { last_tool_result_matches: 'intutic-e2e-42' },
      then: { text: 'The command printed intutic-e2e-42 as expected.' },
      else: { text: 'The command did not print what I expected: {{last_tool_result}}' },
    },
  ],
});

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
    child.stdin?.end();
  });
}

let model: ScriptedModel | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
});

/** A project directory, and a HOME holding the CLI's settings; TMPDIR too, where it writes error reports. */
function workdir(): { cwd: string; env: (baseUrl: string) => Record<string, string> } {
  const root = scratchDir('intutic-gemini-e2e-');
  const cwd = join(root, 'project');
  const home = join(root, 'home');
  const tmp = join(root, 'tmp');
  for (const dir of [cwd, home, tmp]) mkdirSync(dir);
  writeGeminiSettings(home);
  return { cwd, env: (baseUrl) => ({ ...geminiEnv(baseUrl, home), TMPDIR: tmp }) };
}

const bodyOf = (request: ScriptedModel['requests'][number]): Record<string, unknown> => request.body as Record<string, unknown>;
const modelOf = (url: string): string => /\/models\/([^:]+):/.exec(url)?.[1] ?? '';

describe.runIf(requireOrSkip('gemini against the scripted model', agentRequirement('gemini')))('Gemini CLI against the scripted model', () => {
  it('routes, runs the scripted shell call and prints the final text; the model received the tool output', async () => {
    model = await startScriptedModel({ script: script('let n=6*7; echo intutic-e2e-$n') });
    const { cwd, env } = workdir();
    const result = await run(agentBin('gemini'), ['-p', 'Print the magic number with the shell.', '--yolo'], env(model.url), cwd);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('The command printed intutic-e2e-42 as expected.');
    expect(result.stderr).not.toContain('[Routing]'); // the router took the JSON answer

    const [router, ...turns] = model.requests;
    expect(router!.url).toMatch(/^\/v1beta\/models\/[^:]+:generateContent$/);
    expect(readGemini(bodyOf(router!), modelOf(router!.url)).answerSchema).not.toBeNull();
    expect(turns.length).toBeGreaterThanOrEqual(2);
    expect(modelOf(turns[0]!.url)).toMatch(/flash/); // complexity_score 1: the simple task, the flash model
    for (const turn of turns) expect(turn.url).toMatch(/^\/v1beta\/models\/[^:]+:streamGenerateContent\?alt=sse$/);
    expect(model.requests.every((r) => r.api === 'gemini' && r.headers['x-goog-api-key'] === 'gemini-scripted-model')).toBe(true);

    const last = turns.at(-1)!;
    const conversation = readGemini(bodyOf(last), modelOf(last.url), true);
    expect(conversation.toolNames).toContain('run_shell_command');
    expect(conversation.rounds).toBe(1);
    expect(conversation.lastToolResult).toContain('intutic-e2e-42');
  });

  it('with -m streams every turn to that model; a $((…)) command is refused and the refusal reaches the model', async () => {
    model = await startScriptedModel({ script: script('echo intutic-e2e-$((6*7))') });
    const { cwd, env } = workdir();
    const result = await run(agentBin('gemini'), ['-m', 'gemini-2.5-pro', '-p', 'Print the magic number with the shell.', '--yolo'], env(model.url), cwd);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('The command did not print what I expected: Command injection detected');
    expect(model.requests.length).toBeGreaterThanOrEqual(2);
    for (const request of model.requests) expect(request.url).toBe('/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse');
  });
});
