// Provider keys stay on the host (DESIGN "Decisions"). With real-looking keys in the worker's
// environment, a repetition's agent finds only its stand-ins — in its env, every process's environ
// and argv, every file it can read — yet its model calls through the proxy succeed and the scripted
// upstream receives the real keys: the proxy swapped them (the positive control). Another key is
// refused. The real keys are written nowhere: not the agent's or verify's output, the events, the
// proxy's log, the report, any artifact, the kept worktree, the worker's home, Redis or the terminal.
import { randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerRequirement, redisRequirement, requireOrSkip } from '@intutic/testkit';
import { nodeSandboxWorld, NODE_IMAGE as IMAGE, REGISTRY_DOMAIN, REGISTRY_HOST, type World } from './fixtures/harness.ts';
import { readReportFile } from './fixtures/reports.ts';
import { filesUnder, redisDump } from './fixtures/leftovers.ts';

const ok = requireOrSkip('provider keys', await redisRequirement()) && requireOrSkip('provider keys', dockerRequirement());

// Shaped like the providers' keys: `sk-ant-api03-` and 90 characters, `sk-proj-` and 120.
const REAL_ANTHROPIC = `sk-ant-api03-${randomBytes(90).toString('base64url').slice(0, 90)}`;
const REAL_OPENAI = `sk-proj-${randomBytes(120).toString('base64url').slice(0, 120)}`;
const OTHER_KEY = 'sk-ant-api03-not-this-sandboxs-key-0123456789';
const STAND_IN_ANTHROPIC = /^sk-ant-api03-intutic-[0-9a-f]{48}$/;
const STAND_IN_OPENAI = /^sk-intutic-[0-9a-f]{48}$/;

// The agent prints its env, calls both providers with its stand-ins and Anthropic with another key,
// then everything else it can see: every process's argv and environment, and every key-shaped string
// in every file it can read. A section per `== name`.
const KEYS = 'sk-(ant-api03|proj|intutic)-[A-Za-z0-9_-]{16,}';
const ANTHROPIC_BODY = '{"model":"claude-sonnet-4-5","max_tokens":64,"messages":[{"role":"user","content":"say OK"}]}';
const AGENT = [
  'echo "== env"; env',
  'env > /work/agent-env.txt',
  `echo "== anthropic"; curl -sS -w ' status=%{http_code}\\n' "$ANTHROPIC_BASE_URL/v1/messages" -H "x-api-key: $ANTHROPIC_API_KEY" -H 'anthropic-version: 2023-06-01' -H 'content-type: application/json' -d '${ANTHROPIC_BODY}'`,
  `echo "== openai"; curl -sS -w ' status=%{http_code}\\n' "$OPENAI_BASE_URL/chat/completions" -H "authorization: Bearer $OPENAI_API_KEY" -H 'content-type: application/json' -d '{"model":"gpt-5","messages":[{"role":"user","content":"say OK"}]}'`,
  `echo "== other key"; curl -sS -w ' status=%{http_code}\\n' "$ANTHROPIC_BASE_URL/v1/messages" -H 'x-api-key: ${OTHER_KEY}' -H 'anthropic-version: 2023-06-01' -H 'content-type: application/json' -d '${ANTHROPIC_BODY}'`,
  // The faulted repetition's fault: the registry's DNS fails (and the run has one that fired).
  `echo "== registry"; curl -sS http://${REGISTRY_HOST}/lodash; echo`,
  'echo "== ps"; ps auxe',
  `echo "== proc"; for f in /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do echo "$f"; tr '\\000' '\\n' < "$f" 2>/dev/null; done`,
  // Every file but the kernel's, then /proc/self: grep's own process, whose environ holds the
  // stand-ins (the scan's positive control), as /work/agent-env.txt does.
  `echo "== grep"; grep -rsaoE --exclude-dir=proc --exclude-dir=sys --exclude-dir=dev '${KEYS}' /; grep -rsaoE --exclude=pagemap --exclude=mem '${KEYS}' /proc/self`,
  'echo "== end"',
].join('\n');

function section(stdout: string, name: string): string {
  const begin = stdout.indexOf(`== ${name}\n`);
  const end = stdout.indexOf('\n== ', begin + 1);
  if (begin < 0 || end < 0) throw new Error(`no "${name}" section in the agent's output:\n${stdout}`);
  return stdout.slice(begin + name.length + 4, end);
}

let world: World;
beforeAll(async () => {
  if (!ok) return;
  world = await nodeSandboxWorld('keys');
  // The worker's shell has both keys; both providers' calls go to the scripted model.
  world.env.ANTHROPIC_API_KEY = REAL_ANTHROPIC;
  world.env.OPENAI_API_KEY = REAL_OPENAI;
  const proxyArgs = JSON.parse(world.env.INTUTIC_CHAOS_PROXY_ARGS!) as string[];
  world.env.INTUTIC_CHAOS_PROXY_ARGS = JSON.stringify([...proxyArgs, '--upstream-openai', world.model.url]);
}, 1_800_000);
afterAll(async () => {
  await world?.close();
});

describe.skipIf(!ok)('provider keys in a repetition', () => {
  it('the sandbox holds only stand-ins, the upstream gets the real keys, and the real keys are written nowhere', async () => {
    const before = world.model.requests.length;
    const file = world.experiment('registry-down', {
      agent: AGENT,
      verify: 'echo "== env"; env; echo "== end"',
      repeat: 1,
      faults: [{ id: 'egress.dns_fail', match: { host: `*.${REGISTRY_DOMAIN}` } }],
    });
    const out = join(world.root, 'provider-keys.json');
    // --keep: the worktrees stay, so what the agent could write there is searched too.
    const result = await world.cli(['chaos', 'run', file, '--sandbox-image', IMAGE, '--out', out, '--keep']);
    const report = readReportFile(out);
    expect(
      report.repetitions.map((r) => [r.kind, r.error, r.agent_exit_code, r.verify_exit_code]),
      result.stderr,
    ).toEqual([
      ['baseline', null, 0, 0],
      ['faulted', null, 0, 0],
    ]);
    expect(JSON.stringify(report)).not.toContain('not set in the worker');

    const standIns: string[] = [];
    for (const rep of report.repetitions) {
      const stdout = readFileSync(rep.artifacts.agent_output, 'utf8');
      const env = section(stdout, 'env');
      const anthropic = /^ANTHROPIC_API_KEY=(.*)$/m.exec(env)?.[1] ?? '';
      const openai = /^OPENAI_API_KEY=(.*)$/m.exec(env)?.[1] ?? '';
      expect(anthropic, env).toMatch(STAND_IN_ANTHROPIC);
      expect(openai, env).toMatch(STAND_IN_OPENAI);
      standIns.push(anthropic, openai);

      // The stand-ins work: both calls answered by the scripted model; another key is refused.
      expect(section(stdout, 'anthropic')).toMatch(/"type":"message".* status=200$/s);
      expect(section(stdout, 'openai')).toMatch(/"object":"chat.completion".* status=200$/s);
      expect(section(stdout, 'other key')).toMatch(/"type":"authentication_error".*stand-in.* status=401$/s);
      // The scans saw the sandbox: the stand-ins are in ps's environments, /proc and the files grep read.
      for (const name of ['ps', 'proc', 'grep']) expect(section(stdout, name), name).toContain(anthropic);
      expect(section(stdout, 'grep')).toContain(`/proc/self/environ:${openai}`);
      expect(section(stdout, 'grep')).toContain(`/work/agent-env.txt:${anthropic}`);
      for (const real of [REAL_ANTHROPIC, REAL_OPENAI]) expect(stdout).not.toContain(real);

      expect(section(readFileSync(rep.artifacts.verify_output, 'utf8'), 'env')).toContain(`ANTHROPIC_API_KEY=${anthropic}`);
      const proxyLog = readFileSync(rep.artifacts.proxy_log, 'utf8');
      expect(proxyLog).toContain('stand_ins=anthropic,openai');
      expect(proxyLog).toMatch(/model call refused: not this sandbox's stand-in key provider=anthropic/);
    }
    // Fresh per repetition.
    expect(new Set(standIns).size).toBe(4);

    // The positive control: the upstream got each repetition's calls with the real keys, never a stand-in.
    const received = world.model.requests.slice(before);
    const keyHeaders = received.map((r) => ({ api: r.api, key: r.headers['x-api-key'] ?? r.headers.authorization }));
    expect(keyHeaders).toEqual([
      { api: 'anthropic', key: REAL_ANTHROPIC },
      { api: 'openai-chat', key: `Bearer ${REAL_OPENAI}` },
      { api: 'anthropic', key: REAL_ANTHROPIC },
      { api: 'openai-chat', key: `Bearer ${REAL_OPENAI}` },
    ]);
    const upstreamSaw = JSON.stringify(received.map((r) => r.headers));
    for (const standIn of standIns) expect(upstreamSaw).not.toContain(standIn);
    expect(upstreamSaw).not.toContain(OTHER_KEY);

    // The real keys are nowhere. world.root holds the report, its artifacts (events, agent and verify
    // output, proxy log and output, plan), the worker's home (job state, the kept worktrees) and the project.
    const files = filesUnder(world.root);
    const artifacts = report.repetitions.flatMap((r) => [
      r.artifacts.agent_output,
      r.artifacts.verify_output,
      r.artifacts.events,
      r.artifacts.proxy_log,
      join(r.artifacts.dir, 'proxy.stdout.txt'),
    ]);
    for (const path of [out, ...artifacts]) expect(files).toContain(path);
    const keptWorktreeFiles = files.filter((f) => f.endsWith('/agent-env.txt'));
    expect(keptWorktreeFiles).toHaveLength(2);
    const holders: string[] = [];
    for (const path of files) {
      if (statSync(path).size > 256 * 1024 * 1024) continue;
      const bytes = readFileSync(path);
      if (bytes.includes(REAL_ANTHROPIC) || bytes.includes(REAL_OPENAI)) holders.push(path);
    }
    for (const [key, value] of await redisDump(world.prefix)) if (value.includes(REAL_ANTHROPIC) || value.includes(REAL_OPENAI)) holders.push(`redis ${key}`);
    const inspect = await world.cli(['chaos', 'inspect', report.run.id, '--json']);
    for (const [what, text] of [
      ['chaos run output', result.stdout + result.stderr],
      ['chaos inspect', inspect.stdout + inspect.stderr],
    ] as const) {
      if (text.includes(REAL_ANTHROPIC) || text.includes(REAL_OPENAI)) holders.push(what);
    }
    expect(holders).toEqual([]);
  }, 600_000);
});
