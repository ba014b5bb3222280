// The fault matrix through real agents in the sandbox, one `intutic chaos run` per agent of
// examples/scripts/fault-matrix/<agent>.yaml. With each agent every one of the catalog's eleven
// faults fires: the llm.* and egress.* faults in the repetition's proxy, permission.deny_or_delay and
// the built-in side of tool.error in its PreToolUse hook gate, the MCP faults (and the MCP side of
// tool.error) in intutic-mcp-proxy around the filesystem server, which Codex offers the model inside
// a `namespace` tool. Every injecting component reports plan_loaded, the report carries no silence
// warning, each fault's effect reached the model, and nothing but the loopback GitHub was reached
// through the egress proxy.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventOf } from '@intutic/events';
import { FAULT_IDS, type FaultId } from '@intutic/faults';
import type { Report } from '@intutic/report';
import { checkEngine, cliVersion, ensureCodexAgentImage } from '@intutic/sandbox';
import { loadScript, sandboxBuildEnv, startScriptedModel, type RecordedRequest, type ScriptedModel } from '@intutic/testkit';
import { runExperiment } from '../demo/src/chaos.ts';
import { credentialRevokedFiles } from '../demo/src/examples.ts';
import { REPO_ROOT } from '../demo/src/intutic.ts';
import { GITHUB_HOSTS, startGithubFixture, type GithubFixture } from './github-fixture.ts';
import {
  agentImage,
  deleteQueueKeys,
  e2eEnv,
  e2eReady,
  egressHosts,
  events,
  proxyTrustBundle,
  removeDir,
  repetition,
  scratchDir,
  testProject,
} from './support.ts';

const ready = await e2eReady('fault matrix end to end');
const queuePrefix = `intutic-e2e-matrix-${process.pid}`;
const MATRIX = join(REPO_ROOT, 'examples', 'scripts', 'fault-matrix');

let github: GithubFixture;
const dirs: string[] = [];

beforeAll(async () => {
  if (ready) github = await startGithubFixture();
});

afterAll(async () => {
  if (!ready) return;
  await github?.close();
  await deleteQueueKeys(queuePrefix);
  for (const dir of dirs) removeDir(dir);
});

interface MatrixRun {
  report: Report;
  model: ScriptedModel;
  /** Every request body the scripted model received, as one string: what the agent sent the model. */
  sent: string;
  /** When each of model.requests reached the scripted model (epoch ms), by index. */
  arrivals: number[];
}

/** Time-stamp the scripted model's request log as it grows: the log itself keeps no times. */
function stampArrivals(model: ScriptedModel): number[] {
  const arrivals: number[] = [];
  const push = model.requests.push.bind(model.requests);
  model.requests.push = (...requests: RecordedRequest[]) => {
    for (const _ of requests) arrivals.push(Date.now());
    return push(...requests);
  };
  return arrivals;
}

async function runMatrix(agent: 'claude-code' | 'codex', image: string): Promise<MatrixRun> {
  const root = scratchDir(`fault-matrix-${agent}`);
  dirs.push(root);
  // The repetition's proxy verifies the loopback GitHub's certificate like any upstream's.
  const env = { ...e2eEnv(queuePrefix), NODE_EXTRA_CA_CERTS: proxyTrustBundle(root, github.caPem) };
  const checklist = '# Checklist\n\n1. the shell\n2. README.md\n3. the filesystem server\n4. the GitHub API\n';
  const project = await testProject(root, { ...credentialRevokedFiles(github.caPem), 'CHECKLIST.md': checklist }, env);
  const model = await startScriptedModel({ script: loadScript(join(MATRIX, `${agent}.json`)) });
  const arrivals = stampArrivals(model);
  const started = Date.now();
  const { run, report } = await runExperiment({
    project,
    experimentFile: join(MATRIX, `${agent}.yaml`),
    image,
    modelUrl: model.url,
    reportPath: join(root, 'report.json'),
    proxyArgs: github.resolveArgs,
    timeoutMs: 600_000,
  }).finally(() => model.close());
  process.stderr.write(`[fault matrix ${agent}] exit ${run.code}, ${report?.verdict}, ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  if (!report) throw new Error(`no report (exit ${run.code}):\n${run.stderr.slice(-4000)}`);
  expect(run.code).toBe(0);
  expect(report.verdict).toBe('scored');
  // Silence is not success: no fault went unloaded or unfired, and nothing else was wrong.
  expect(report.warnings).toEqual([]);
  expect(report.faults_fired.every((f) => f.injections >= 1)).toBe(true);
  expect(repetition(report, 'faulted').verify_exit_code).toBe(0);
  // Every injecting component loaded the plan in the faulted repetition.
  const loadedBy = new Set(events(repetition(report, 'faulted')).flatMap((e) => (e.type === 'plan_loaded' ? [e.source] : [])));
  expect([...loadedBy].sort()).toEqual(['gate', 'mcp-proxy', 'proxy']);
  // Nothing left the machine through the egress proxy: only the loopback GitHub was asked for.
  expect(egressHosts(report).filter((host) => !GITHUB_HOSTS.includes(host))).toEqual([]);
  return { report, model, sent: model.requests.map((r) => JSON.stringify(r.body ?? '')).join('\n'), arrivals };
}

type Body = Record<string, unknown>;

/**
 * The faulted model call as the scripted model received it, with the proxy's fault_injected for it.
 * The proxy stamps that event before it forwards the call, so the call is the first model request
 * (count_tokens aside) to reach the model from then on that `isCandidate` admits. Claude Code can
 * make side requests (other models, no system prompt), which is why "some request shows the effect"
 * proves nothing: the effect must be on this one.
 */
function faultedRequest(
  run: MatrixRun,
  id: FaultId,
  api: RecordedRequest['api'],
  isCandidate: (body: Body, injected: EventOf<'fault_injected'>) => boolean = () => true,
) {
  const injections = events(repetition(run.report, 'faulted')).filter((e): e is EventOf<'fault_injected'> => e.type === 'fault_injected' && e.fault_id === id);
  expect(injections, `${id} fired once`).toHaveLength(1);
  const injected = injections[0]!;
  const index = run.model.requests.findIndex((r, i) => r.api === api && run.arrivals[i]! >= injected.ts && isCandidate(r.body as Body, injected));
  expect(index, `the model received the call ${id} was injected into`).toBeGreaterThanOrEqual(0);
  return { injected, body: run.model.requests[index]!.body as Body };
}

/** fault index:id -> the component that reported injecting it, in the faulted repetition. */
function injectors(report: Report): Record<string, string> {
  return Object.fromEntries(
    events(repetition(report, 'faulted')).flatMap((e) => (e.type === 'fault_injected' ? [[`${e.fault_index}:${e.fault_id}`, e.source]] : [])),
  );
}

function llmStatuses(report: Report): number[] {
  return events(repetition(report, 'faulted')).flatMap((e) => (e.type === 'llm_call' ? [e.status] : []));
}

describe.runIf(ready)('the fault matrix', () => {
  it('Claude Code: all eleven faults fire through the proxy, the hook gate and the MCP proxy', async () => {
    const matrix = await runMatrix('claude-code', await agentImage());
    const { report, sent } = matrix;
    expect(FAULT_IDS.filter((id) => !report.faults_fired.some((f) => f.id === id))).toEqual([]);
    expect(injectors(report)).toEqual({
      '0:llm.rate_limit': 'proxy',
      '1:llm.upstream_5xx': 'proxy',
      '2:llm.context_trim': 'proxy',
      '3:llm.model_degrade': 'proxy',
      '4:permission.deny_or_delay': 'gate',
      '5:tool.error': 'gate',
      '6:tool.error': 'mcp-proxy',
      '7:tool.stale_data': 'mcp-proxy',
      '8:inject.tool_result': 'mcp-proxy',
      '9:mcp.toolset_change': 'mcp-proxy',
      '10:egress.credential_401': 'proxy',
      '11:egress.dns_fail': 'proxy',
    });
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
    const matrix = await runMatrix('codex', image);
    const { report, sent } = matrix;
    expect(FAULT_IDS.filter((id) => !report.faults_fired.some((f) => f.id === id))).toEqual([]);
    expect(injectors(report)).toEqual({
      '0:llm.rate_limit': 'proxy',
      '1:llm.upstream_5xx': 'proxy',
      '2:llm.context_trim': 'proxy',
      '3:llm.model_degrade': 'proxy',
      '4:permission.deny_or_delay': 'gate',
      '5:tool.error': 'gate',
      '6:tool.error': 'mcp-proxy',
      '7:tool.stale_data': 'mcp-proxy',
      '8:inject.tool_result': 'mcp-proxy',
      '9:mcp.toolset_change': 'mcp-proxy',
      '10:egress.credential_401': 'proxy',
      '11:egress.dns_fail': 'proxy',
    });
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
