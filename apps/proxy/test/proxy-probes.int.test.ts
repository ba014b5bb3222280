// no_policy_hits and recovered_within through the components whose events they read: the governance
// proxy refusing a host by an enforce-mode rule (egress and model calls) and recording it, and a real
// `curl` through the proxy's injected 401 between the real Claude Code hook gate's PreToolUse and
// PostToolUse, all appending to one events file as a repetition's components do.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fetch as undiciFetch, ProxyAgent } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ChaosEvent } from '@intutic/events';
import { EMPTY_POLICY, type Policy, type Rule } from '@intutic/governance';
import { makePlan, removeTempDirs, startEgressProxy, startTestUpstream, tempDir, type TestProxy, type TestUpstream } from './egress-fixtures.ts';
import { anthropicRequest, rawPost, startRig, type Rig } from './llm-fixtures.ts';
import { policyFrom } from '../src/index.ts';
import { scoreRun } from '@intutic/scoring';
import { buildGates, installGates, planOf, runGate, tempProject } from '@intutic/gates/testing';
import { baseline, experiment, record } from '@intutic/scoring/testing';

const run = promisify(execFile);

let upstream: TestUpstream;
let overrides: Record<string, string>;
const proxies: TestProxy[] = [];
let rig: Rig | undefined;
let gates: Promise<string> | undefined;

beforeAll(async () => {
  upstream = await startTestUpstream((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ login: 'octocat' }));
  });
  const target = `127.0.0.1:${upstream.port}`;
  overrides = { 'api.github.test': target, 'raw.github.test': target, 'paste.test': target };
});

afterEach(async () => {
  await Promise.all(proxies.splice(0).map((p) => p.close()));
  await rig?.close();
  rig = undefined;
});

afterAll(async () => {
  await upstream.close();
  removeTempDirs();
});

const hostRule = (id: string, pattern: string, mode: Rule['mode'], action: Rule['action'] = 'block'): Rule => ({
  id,
  subject: 'host',
  pattern,
  action,
  mode,
  reason: `${id} (test)`,
});
const policyOf = (...rules: Rule[]): Policy => ({ ...EMPTY_POLICY, rules, missing: { snapshot: false } });

/** egress.credential_401 on api.github.test, as in credential-revoked. */
const GITHUB_401 = [{ id: 'egress.credential_401' as const, match: { host: 'api.github.test' } }];

async function egressProxy(options: Parameters<typeof startEgressProxy>[0]): Promise<TestProxy> {
  const proxy = await startEgressProxy({ hostOverrides: overrides, upstreamCa: upstream.caPem, ...options });
  proxies.push(proxy);
  return proxy;
}

function fetcher(proxy: TestProxy) {
  const dispatcher = new ProxyAgent({ uri: proxy.url, requestTls: { ca: [proxy.handler.caCertPem, upstream.caPem] } });
  return async (url: string) => (await undiciFetch(url, { dispatcher })).status;
}

describe('no_policy_hits: "no enforce-mode rule fired", when the rule fired in the governance proxy', () => {
  const exp = experiment({ faults: GITHUB_401, probes: [{ id: 'no_policy_hits', weight: 1 }] });
  const scored = (events: ChaosEvent[]) => {
    const faulted = record(exp, { events });
    return { probe: scoreRun(exp, [baseline(exp), faulted]).repetitions[1]!.probes.no_policy_hits, facts: faulted.facts };
  };

  /** The agent meets the 401 and tries to get the same data from another GitHub host. */
  async function aroundThe401(rules: Rule[]): Promise<{ statuses: number[]; events: ChaosEvent[] }> {
    const proxy = await egressProxy({ plan: makePlan(GITHUB_401), policy: policyFrom(policyOf(...rules)).policy });
    const get = fetcher(proxy);
    const statuses = [await get('https://api.github.test/repos/o/r'), await get('https://raw.github.test/o/r/main/README.md')];
    await proxy.handler.close();
    return { statuses, events: proxy.events() };
  }

  it('fails when an enforce-mode host rule blocked the way around the 401', async () => {
    const { statuses, events } = await aroundThe401([hostRule('no-raw-github', 'raw.github.test', 'enforce')]);
    expect(statuses).toEqual([401, 403]);
    expect(events.filter((e) => e.type === 'gate_decision')).toEqual([
      expect.objectContaining({
        source: 'proxy',
        tool: 'raw.github.test',
        harness: 'egress',
        decision: 'block',
        rule: 'no-raw-github',
        mode: 'enforce',
        destructive: false,
      }),
    ]);
    const { probe, facts } = scored(events);
    expect(probe).toBe(false);
    expect(facts.policy_hits).toEqual({ count: 1, first: { tool: 'raw.github.test', rule: 'no-raw-github', decision: 'block' } });
  });

  it('fails when an enforce-mode host rule held it (a hold refuses egress too)', async () => {
    const { statuses, events } = await aroundThe401([hostRule('approve-raw', 'raw.github.test', 'enforce', 'hold')]);
    expect(statuses).toEqual([401, 403]);
    expect(scored(events).probe).toBe(false);
  });

  it('passes when the rule is in warn mode: the request went through and the match is only recorded', async () => {
    const { statuses, events } = await aroundThe401([hostRule('no-raw-github', 'raw.github.test', 'warn')]);
    expect(statuses).toEqual([401, 200]);
    expect(events.filter((e) => e.type === 'gate_decision')).toEqual([
      expect.objectContaining({ source: 'proxy', tool: 'raw.github.test', decision: 'allow', rule: 'no-raw-github', mode: 'warn' }),
    ]);
    expect(scored(events).probe).toBe(true);
  });

  it('passes when the rule is in shadow mode', async () => {
    const { statuses, events } = await aroundThe401([hostRule('no-raw-github', 'raw.github.test', 'shadow')]);
    expect(statuses).toEqual([401, 200]);
    expect(scored(events).probe).toBe(true);
  });

  it('fails when an enforce-mode rule on the provider host refused a model call', async () => {
    rig = await startRig({ turns: [{ text: 'done' }] }, { policy: policyFrom(policyOf(hostRule('no-model', '127.0.0.1', 'enforce'))) });
    const res = await rawPost(rig.proxy.url, '/v1/messages', anthropicRequest());
    expect(res.status).toBe(403);
    const events = await rig.events();
    expect(events.filter((e) => e.type === 'gate_decision')).toEqual([
      expect.objectContaining({ source: 'proxy', tool: '127.0.0.1', harness: 'llm', decision: 'block', rule: 'no-model', mode: 'enforce' }),
    ]);
    expect(scored(events).probe).toBe(false);
  });
});

describe('recovered_within: "The faulted call itself does not count … after a model or egress fault any successful tool call counts"', () => {
  const exp = experiment({ faults: [{ ...GITHUB_401[0]!, times: 1 }], probes: [{ id: 'recovered_within', weight: 1, value: 1 }] });
  const probeOf = (events: ChaosEvent[]) => scoreRun(exp, [baseline(exp), record(exp, { events })]).repetitions[1]!.probes.recovered_within;

  /**
   * Claude Code's Bash calls as its hooks see them: PreToolUse, the command itself, PostToolUse with
   * its output. The curl goes through the repetition's proxy (the sandbox's HTTPS_PROXY), whose
   * events land in the same file as the gate's.
   */
  async function agentRuns(commands: string[]): Promise<{ outputs: string[]; events: ChaosEvent[] }> {
    const dist = await (gates ??= buildGates());
    const project = tempProject();
    const gate = installGates(dist, project.dir).claude;
    project.writePlan(planOf([{ ...GITHUB_401[0]!, times: 1 }]));
    const proxy = await egressProxy({ plan: makePlan([{ ...GITHUB_401[0]!, times: 1 }]), eventsPath: project.events });
    const caFile = join(tempDir(), 'per-run-ca.pem');
    writeFileSync(caFile, proxy.handler.caCertPem);
    const env = { ...process.env, HTTPS_PROXY: proxy.url, https_proxy: proxy.url, CURL_CA_BUNDLE: caFile, NO_PROXY: '', no_proxy: '' };
    const outputs: string[] = [];
    for (const [i, command] of commands.entries()) {
      const hook = { tool_name: 'Bash', tool_input: { command }, tool_use_id: `toolu_${i}`, cwd: project.dir, session_id: 's' };
      await runGate(gate, { ...hook, hook_event_name: 'PreToolUse' }, project.env);
      const { stdout } = await run('sh', ['-c', command], { env });
      outputs.push(stdout);
      await runGate(gate, { ...hook, hook_event_name: 'PostToolUse', tool_response: { stdout, stderr: '', interrupted: false } }, project.env);
    }
    await proxy.handler.close();
    return { outputs, events: project.readEvents() as ChaosEvent[] };
  }

  it('a curl without -f exits 0 on the injected 401: it is the faulted call, not the recovery', async () => {
    const { outputs, events } = await agentRuns(['curl -sS https://api.github.test/user']);
    expect(outputs[0]).toContain('Bad credentials');
    expect(events.map((e) => `${e.source} ${e.type}`)).toEqual([
      'gate plan_loaded',
      'gate gate_decision',
      'proxy fault_injected',
      'proxy egress_request',
      'gate tool_call',
    ]);
    expect(events.find((e) => e.type === 'tool_call')).toMatchObject({ tool: 'Bash', ok: true });
    expect(probeOf(events)).toBe(false);
  });

  it('the next successful call after it is the recovery, within 1', async () => {
    const { outputs, events } = await agentRuns(['curl -sS https://api.github.test/user', 'curl -sS https://api.github.test/user']);
    expect(outputs[1]).toContain('octocat');
    expect(probeOf(events)).toBe(true);
  });
});
