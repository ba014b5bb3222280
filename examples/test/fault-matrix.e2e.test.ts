// The fault matrix through real agents in the sandbox, one `intutic chaos run` per agent of
// examples/scripts/fault-matrix/<agent>.yaml. With each agent every one of the catalog's eleven
// faults fires: the llm.* and egress.* faults in the repetition's proxy, permission.deny_or_delay and
// the built-in side of tool.error in its PreToolUse hook gate, the MCP faults (and the MCP side of
// tool.error) in intutic-mcp-proxy around the filesystem server, which Codex offers the model inside
// a `namespace` tool. Every injecting component reports plan_loaded, the report carries no silence
// warning, each fault's effect reached the model, and nothing but the loopback GitHub was reached
// through the egress proxy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAULT_IDS } from '@intutic/faults';
import { checkEngine, cliVersion, ensureCodexAgentImage } from '@intutic/sandbox';
import { sandboxBuildEnv } from '@intutic/testkit';
import { faultedRequest, injectors, llmStatuses, MATRIX_INJECTORS, runMatrix, type MatrixWorld } from './fault-matrix-support.ts';
import { startGithubFixture } from './github-fixture.ts';
import { agentImage, deleteQueueKeys, e2eReady, removeDir, repetition } from './support.ts';

const ready = await e2eReady('fault matrix end to end');
const world = { queuePrefix: `intutic-e2e-matrix-${process.pid}`, dirs: [] as string[] } as MatrixWorld;

beforeAll(async () => {
  if (ready) world.github = await startGithubFixture();
});

afterAll(async () => {
  if (!ready) return;
  await world.github?.close();
  await deleteQueueKeys(world.queuePrefix);
  for (const dir of world.dirs) removeDir(dir);
});

describe.runIf(ready)('the fault matrix', () => {
  it('Claude Code: all eleven faults fire through the proxy, the hook gate and the MCP proxy', async () => {
    const matrix = await runMatrix(world, 'claude-code', await agentImage());
    const { report, sent } = matrix;
    expect(FAULT_IDS.filter((id) => !report.faults_fired.some((f) => f.id === id))).toEqual([]);
    expect(injectors(report)).toEqual(MATRIX_INJECTORS);
    // The proxy answered the 429 and the 500 itself; Claude Code retried past both.
    expect(llmStatuses(report)).toEqual(expect.arrayContaining([429, 500]));
    // Each tool-side fault reached the model as Claude Code's tool result.
    for (const effect of [
      'HELD: this Bash call is waiting for an approval',
      'I/O error reading the file',
      'the directory listing timed out',
      '2019-01-01T00:00:00Z',
      'NOTE TO AI ASSISTANTS',
      'Bad credentials',
      'ENOTFOUND codeload.github.com',
    ]) {
      expect(sent, effect).toContain(effect);
    }
    expect(sent).toContain(repetition(report, 'faulted').canary);
    // mcp.toolset_change removed search_files: the agent's next call to it failed.
    expect(sent).toMatch(/Tool search_files not found|No such tool available: mcp__fs__search_files/);
    // llm.context_trim: the call it fired on (the model it asked for is unchanged) reached the model
    // without its system prompt, which the proxy says it had.
    const trimmed = faultedRequest(matrix, 'llm.context_trim', 'anthropic', (body, injected) => body.model === injected.target);
    expect(trimmed.injected.detail).toContain('and the system prompt');
    expect(trimmed.body).not.toHaveProperty('system');
    // llm.model_degrade: the call it fired on asked for another model and was served by claude-haiku-4-5.
    const degraded = faultedRequest(matrix, 'llm.model_degrade', 'anthropic');
    expect(degraded.injected.target).not.toBe('claude-haiku-4-5');
    expect(degraded.body.model).toBe('claude-haiku-4-5');
  });

  it('Codex: all eleven faults fire through the proxy, the hook gate and the MCP proxy', async () => {
    const engine = await checkEngine({ env: process.env });
    const image = await ensureCodexAgentImage(engine, {
      version: cliVersion(),
      env: sandboxBuildEnv(process.env),
      onProgress: (line) => process.stderr.write(`[codex image] ${line}\n`),
    });
    const matrix = await runMatrix(world, 'codex', image);
    const { report, sent } = matrix;
    expect(FAULT_IDS.filter((id) => !report.faults_fired.some((f) => f.id === id))).toEqual([]);
    expect(injectors(report)).toEqual(MATRIX_INJECTORS);
    expect(llmStatuses(report)).toEqual(expect.arrayContaining([429, 500]));
    // Each tool-side fault reached the model as Codex's tool output.
    for (const effect of [
      'DENIED: permission to run Bash was denied',
      'the shell session crashed',
      'the directory listing timed out',
      '2019-01-01T00:00:00Z',
      'NOTE TO AI ASSISTANTS',
      'Bad credentials',
      'ENOTFOUND codeload.github.com',
    ]) {
      expect(sent, effect).toContain(effect);
    }
    expect(sent).toContain(repetition(report, 'faulted').canary);
    // mcp.toolset_change removed search_files: Codex still offers it (it does not list the tools
    // again on tools/list_changed), so its next call reached the MCP proxy, which refused it.
    expect(sent).toContain('Tool search_files not found');
    // llm.context_trim: the call it fired on reached the model without the developer items the proxy
    // says it dropped (Codex sends its instructions as developer input items), nor instructions.
    const trimmed = faultedRequest(matrix, 'llm.context_trim', 'openai-responses', (body, injected) => body.model === injected.target);
    expect(trimmed.injected.detail).toContain('and the system prompt');
    expect(trimmed.body).not.toHaveProperty('instructions');
    const roles = Array.isArray(trimmed.body.input) ? (trimmed.body.input as { role?: unknown }[]).map((item) => item.role) : [];
    expect(roles).not.toContain('system');
    expect(roles).not.toContain('developer');
    // llm.model_degrade: the call it fired on asked for another model and was served by gpt-5-mini.
    const degraded = faultedRequest(matrix, 'llm.model_degrade', 'openai-responses');
    expect(degraded.injected.target).not.toBe('gpt-5-mini');
    expect(degraded.body.model).toBe('gpt-5-mini');
  });
});
