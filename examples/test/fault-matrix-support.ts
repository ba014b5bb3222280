// What the fault-matrix suites share: one `intutic chaos run` of examples/scripts/fault-matrix/<agent>.yaml
// against its scripted model, checked for what every agent must show (scored, no warning, every fault
// fired, every injecting component loaded the plan, nothing reached but the loopback GitHub), and the
// readers the suites' own checks use.
import { join } from 'node:path';
import { expect } from 'vitest';
import type { EventOf } from '@intutic/events';
import type { FaultId } from '@intutic/faults';
import type { Report } from '@intutic/report';
import { loadScript, startScriptedModel, type RecordedRequest, type ScriptedModel } from '@intutic/testkit';
import { runExperiment } from '../demo/src/chaos.ts';
import { credentialRevokedFiles } from '../demo/src/examples.ts';
import { REPO_ROOT } from '../demo/src/intutic.ts';
import { GITHUB_HOSTS, type GithubFixture } from './github-fixture.ts';
import { e2eEnv, egressHosts, events, proxyTrustBundle, repetition, scratchDir, testProject } from './support.ts';

const MATRIX = join(REPO_ROOT, 'examples', 'scripts', 'fault-matrix');

export type MatrixAgent = 'claude-code' | 'codex' | 'gemini';

/** A suite's own: the loopback GitHub, its queue prefix, and the directories it removes at the end. */
export interface MatrixWorld {
  github: GithubFixture;
  queuePrefix: string;
  dirs: string[];
}

export interface MatrixRun {
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

export async function runMatrix(world: MatrixWorld, agent: MatrixAgent, image: string): Promise<MatrixRun> {
  const { github, queuePrefix } = world;
  const root = scratchDir(`fault-matrix-${agent}`);
  world.dirs.push(root);
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

export type Body = Record<string, unknown>;

/**
 * The faulted model call as the scripted model received it, with the proxy's fault_injected for it.
 * The proxy stamps that event before it forwards the call, so the call is the first model request
 * (count_tokens aside) to reach the model from then on that `isCandidate` admits. Claude Code can
 * make side requests (other models, no system prompt), which is why "some request shows the effect"
 * proves nothing: the effect must be on this one.
 */
export function faultedRequest(
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
  const request = run.model.requests[index]!;
  return { injected, body: request.body as Body, url: request.url };
}

/** Every matrix's faults, in its experiment's order, and the component that injects each, whatever the agent. */
export const MATRIX_INJECTORS = {
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
};

/** fault index:id -> the component that reported injecting it, in the faulted repetition. */
export function injectors(report: Report): Record<string, string> {
  return Object.fromEntries(
    events(repetition(report, 'faulted')).flatMap((e) => (e.type === 'fault_injected' ? [[`${e.fault_index}:${e.fault_id}`, e.source]] : [])),
  );
}

export function llmStatuses(report: Report): number[] {
  return events(repetition(report, 'faulted')).flatMap((e) => (e.type === 'llm_call' ? [e.status] : []));
}
