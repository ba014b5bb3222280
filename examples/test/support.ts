// What the end-to-end example tests share: the requirements (a container engine and Redis; in CI a
// missing one fails the suite), the agent image built once, a scratch directory per test, the
// queue prefix of the file (its Redis keys are deleted afterwards), and reading a repetition's
// artifacts back.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChaosEvent } from '@intutic/events';
import type { Report, ReportRepetition } from '@intutic/report';
import { checkEngine } from '@intutic/sandbox';
import { deleteKeys, dockerRequirement, redisRequirement, requireOrSkip, sandboxBuildEnv, scratchDir as testkitScratchDir } from '@intutic/testkit';
import { ensureExampleImage, type AgentName } from '../demo/src/agents.ts';
import { createExampleProject, hostNpmRegistry, type ExampleProject } from '../demo/src/project.ts';

export const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

/** True when the suite can run: locally a missing engine or Redis skips it with the reason, in CI it fails. */
export async function e2eReady(suite: string): Promise<boolean> {
  return requireOrSkip(suite, dockerRequirement()) && requireOrSkip(suite, await redisRequirement(REDIS_URL));
}

/** The environment every `intutic` command of a test file runs with. */
export function e2eEnv(queuePrefix: string): NodeJS.ProcessEnv {
  return {
    ...sandboxBuildEnv(process.env),
    REDIS_URL,
    INTUTIC_QUEUE_PREFIX: queuePrefix,
    // The CLI derives ${NPM_REGISTRY_DOMAIN} from npm's registry; HOME is the project's own, so
    // hand npm the machine's setting through the environment instead of ~/.npmrc.
    npm_config_registry: hostNpmRegistry(),
    NO_COLOR: '1',
  };
}

/** Build (or reuse) the agent's image — intutic/agent-sandbox:<version>, or its -gemini variant — the build's progress on stderr. */
export async function agentImage(agent: AgentName = 'claude'): Promise<string> {
  const engine = await checkEngine({ env: process.env });
  const started = Date.now();
  const tag = await ensureExampleImage(agent, engine, {
    env: sandboxBuildEnv(process.env),
    onProgress: (line) => process.stderr.write(`[${agent} image] ${line}\n`),
  });
  process.stderr.write(`[${agent} image] ${tag} ready after ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  return tag;
}

/** The example project under root/project, with its own HOME (root/home): its ~/.intutic policy and jobs stay in the test's directory. */
export async function testProject(root: string, files: Record<string, string>, env: NodeJS.ProcessEnv): Promise<ExampleProject> {
  const home = join(root, 'home');
  mkdirSync(home, { recursive: true });
  return createExampleProject(join(root, 'project'), files, { ...env, HOME: home });
}

export function scratchDir(name: string): string {
  return testkitScratchDir(`intutic-e2e-${name}-`);
}

/** Removes a test's directory, unless INTUTIC_TEST_KEEP=1 (to look at the projects, reports and artifacts after a failure; scratch directories honour it too). */
export function removeDir(dir: string): void {
  if (process.env.INTUTIC_TEST_KEEP === '1') process.stderr.write(`kept ${dir} (INTUTIC_TEST_KEEP)\n`);
  else rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}

/** A CA bundle the repetition proxies trust for upstreams: the machine's plus a test CA. */
export function proxyTrustBundle(dir: string, extraCaPem: string): string {
  const path = join(dir, 'proxy-upstream-ca.pem');
  const system = (() => {
    try {
      return readFileSync('/etc/ssl/certs/ca-certificates.crt', 'utf8');
    } catch {
      return '';
    }
  })();
  writeFileSync(path, `${system}\n${extraCaPem}`);
  return path;
}

export async function deleteQueueKeys(prefix: string): Promise<void> {
  await deleteKeys(prefix, REDIS_URL);
}

export function repetition(report: Report, kind: 'baseline' | 'faulted', index = 1): ReportRepetition {
  const found = report.repetitions.find((r) => r.kind === kind && r.index === index);
  if (!found) throw new Error(`the report has no ${kind} repetition ${index}`);
  return found;
}

export function agentStdout(rep: ReportRepetition): string {
  return readFileSync(rep.artifacts.agent_output, 'utf8');
}

export function events(rep: ReportRepetition): ChaosEvent[] {
  return readFileSync(rep.artifacts.events, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as ChaosEvent);
}

/** Every host any repetition asked the egress proxy for (CONNECT or a request), sorted. */
export function egressHosts(report: Report): string[] {
  const hosts = new Set(report.repetitions.flatMap((rep) => events(rep).flatMap((e) => (e.type === 'egress_request' ? [e.host] : []))));
  return [...hosts].sort();
}

export function probe(report: Report, id: string): boolean | null | undefined {
  return repetition(report, 'faulted').probes[id];
}
