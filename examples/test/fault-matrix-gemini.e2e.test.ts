// The fault matrix through real Gemini CLI in the sandbox (examples/scripts/fault-matrix/gemini.yaml,
// the agent image's -gemini variant): every one of the catalog's eleven faults fires — the llm.* and
// egress.* faults in the repetition's proxy on Gemini's API, permission.deny_or_delay and the built-in
// side of tool.error in the BeforeTool hook gate, the MCP faults in intutic-mcp-proxy around the
// filesystem server — and each one's effect reached the model.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAULT_IDS } from '@intutic/faults';
import { checkEngine, cliVersion, ensureGeminiAgentImage } from '@intutic/sandbox';
import { sandboxBuildEnv } from '@intutic/testkit';
import { faultedRequest, injectors, llmStatuses, MATRIX_INJECTORS, runMatrix, type MatrixWorld } from './fault-matrix-support.ts';
import { startGithubFixture } from './github-fixture.ts';
import { deleteQueueKeys, e2eReady, removeDir, repetition } from './support.ts';

const ready = await e2eReady('fault matrix end to end, Gemini CLI');
const world = { queuePrefix: `intutic-e2e-matrix-gemini-${process.pid}`, dirs: [] as string[] } as MatrixWorld;

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
  it('Gemini CLI: all eleven faults fire through the proxy, the hook gate and the MCP proxy', async () => {
    const engine = await checkEngine({ env: process.env });
    const image = await ensureGeminiAgentImage(engine, {
      version: cliVersion(),
      env: sandboxBuildEnv(process.env),
      onProgress: (line) => process.stderr.write(`[gemini image] ${line}\n`),
    });
    const matrix = await runMatrix(world, 'gemini', image);
    const { report, sent } = matrix;
    expect(FAULT_IDS.filter((id) => !report.faults_fired.some((f) => f.id === id))).toEqual([]);
    expect(injectors(report)).toEqual(MATRIX_INJECTORS);
    // The proxy answered the 429 and the 500 itself; Gemini CLI retried past both.
    expect(llmStatuses(report)).toEqual(expect.arrayContaining([429, 500]));
    // Each tool-side fault reached the model as a functionResponse.
    for (const effect of [
      'DENIED: permission to run run_shell_command was denied',
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
    // llm.context_trim: the call it fired on reached the model without its system instruction.
    const trimmed = faultedRequest(matrix, 'llm.context_trim', 'gemini', (_body, injected) => injected.target === 'gemini-2.5-pro');
    expect(trimmed.injected.detail).toContain('and the system prompt');
    expect(trimmed.body).not.toHaveProperty('systemInstruction');
    // llm.model_degrade: the call it fired on asked for gemini-2.5-pro and reached the model at another path.
    const degraded = faultedRequest(matrix, 'llm.model_degrade', 'gemini');
    expect(degraded.injected.target).toBe('gemini-2.5-pro');
    expect(degraded.url).toMatch(/^\/v1beta\/models\/gemini-2\.5-flash:/);
  });
});
