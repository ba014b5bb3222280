// The egress handler on a bare http.Server, against loopback upstreams: which tunnels are
// intercepted, faults counted per request with after_calls/times, governance before any fault,
// plain-HTTP forwarding, bodies passed through intact, and the events it appends.
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { fetch as undiciFetch, ProxyAgent } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { chaosEventSchema } from '@intutic/events';
import type { EgressDecision } from '../src/egress/index.ts';
import {
  CANARY,
  closeServer,
  issuerCn,
  listen,
  makePlan,
  openTunnel,
  requestAbsolute,
  requestOver,
  startEgressProxy,
  startTestUpstream,
  startTls,
  removeTempDirs,
  tempDir,
  type TestProxy,
  type TestUpstream,
} from './egress-fixtures.ts';

const BIG = randomBytes(5 * 1024 * 1024);
let upstream: TestUpstream;
let plainHttp: Server;
let overrides: Record<string, string>;
const proxies: TestProxy[] = [];

beforeAll(async () => {
  upstream = await startTestUpstream((req, res) => {
    if (req.url === '/big') {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': BIG.length });
      res.end(BIG);
      return;
    }
    if (req.url === '/echo-hash') {
      const hash = createHash('sha256');
      req.on('data', (c: Buffer) => hash.update(c));
      req.on('end', () => res.end(hash.digest('hex')));
      return;
    }
    req.resume();
    res.writeHead(200, 'Fine Thanks', { 'content-type': 'application/json', 'x-upstream': 'yes' });
    res.end(JSON.stringify({ login: 'octocat', host: req.headers.host }));
  });
  plainHttp = createServer((req, res) => {
    req.resume();
    res.end(`plain ${req.url} ${req.headers.host} ${String(req.headers['proxy-connection'] ?? '-')}`);
  });
  const httpPort = await listen(plainHttp);
  const target = `127.0.0.1:${upstream.port}`;
  overrides = { 'api.github.test': target, 'registry.npm.test': target, 'plain.test': target, 'evil.test': target, 'plain-http.test': `127.0.0.1:${httpPort}` };
});

afterEach(async () => {
  await Promise.all(proxies.splice(0).map((p) => p.close()));
});

afterAll(async () => {
  await upstream.close();
  await closeServer(plainHttp);
  removeTempDirs();
});

async function proxyWith(options: Parameters<typeof startEgressProxy>[0] = {}): Promise<TestProxy> {
  const proxy = await startEgressProxy({ hostOverrides: overrides, upstreamCa: upstream.caPem, ...options });
  proxies.push(proxy);
  return proxy;
}

/** undici's fetch through the proxy, one keep-alive connection, trusting the per-run CA. */
function fetcher(proxy: TestProxy) {
  const dispatcher = new ProxyAgent({ uri: proxy.url, requestTls: { ca: [proxy.handler.caCertPem, upstream.caPem] }, connections: 1 });
  return async (url: string, init: { headers?: Record<string, string> } = {}) => {
    const res = await undiciFetch(url, { dispatcher, headers: init.headers });
    return { status: res.status, statusText: res.statusText, headers: res.headers, text: await res.text() };
  };
}

const requestsTo = (path: string) => upstream.requests.filter((r) => r.url === path).length;

describe('which CONNECT tunnels are intercepted', () => {
  it('a host no fault and no rule names gets a plain tunnel: the client sees the upstream certificate', async () => {
    const proxy = await proxyWith({ plan: makePlan([{ id: 'egress.dns_fail', match: { host: 'api.github.test' } }]) });
    const tunnel = await openTunnel(proxy.port, 'plain.test:443');
    expect(tunnel.status).toBe(200);
    const tls = await startTls(tunnel.socket, 'plain.test', upstream.caPem);
    expect(issuerCn(tls)).toBe('egress test upstream CA');
    const res = await requestOver(tls, { host: 'plain.test', path: '/plain' });
    expect(res.status).toBe(200);
    await proxy.handler.close();
    expect(proxy.events().map((e) => e.type === 'egress_request' && [e.host, e.method, e.outcome, e.status])).toEqual([
      ['plain.test', 'CONNECT', 'forwarded', 200],
    ]);
  });

  it('a host a fault names is intercepted with a per-run leaf for that name, and forwarded while the fault is not due', async () => {
    const proxy = await proxyWith({ plan: makePlan([{ id: 'egress.credential_401', match: { host: '*.github.test' }, after_calls: 5 }]) });
    const tunnel = await openTunnel(proxy.port, 'api.github.test:443');
    const tls = await startTls(tunnel.socket, 'api.github.test', proxy.handler.caCertPem);
    expect(issuerCn(tls)).toBe('intutic chaos per-run CA');
    expect(tls.getPeerCertificate().subjectaltname).toBe('DNS:api.github.test');
    const before = upstream.requests.length;
    const res = await requestOver(tls, { host: 'api.github.test', path: '/user', headers: { authorization: 'Bearer secret-token' } });
    expect([res.status, res.reason, res.headers['x-upstream']]).toEqual([200, 'Fine Thanks', 'yes']);
    // The upstream was verified against its own CA and got the request as the client sent it.
    expect(upstream.requests.slice(before)).toEqual([{ method: 'GET', url: '/user', host: 'api.github.test', authorization: 'Bearer secret-token' }]);
    expect(proxy.logs.join('\n')).not.toContain('secret-token');
  });

  it('a client that dialled an address but names a host in SNI gets a certificate for that host', async () => {
    const proxy = await proxyWith({ plan: makePlan([{ id: 'egress.dns_fail', match: { host: '10.9.8.7' } }]) });
    const tunnel = await openTunnel(proxy.port, '10.9.8.7:443');
    const tls = await startTls(tunnel.socket, 'api.github.test', proxy.handler.caCertPem);
    expect(tls.getPeerCertificate().subjectaltname).toBe('DNS:api.github.test');
    // Faults match what the client dialled.
    expect((await requestOver(tls, { host: 'api.github.test' })).reason).toContain('getaddrinfo ENOTFOUND 10.9.8.7');
  });

  it('writes the per-run CA where the sandbox will read it', async () => {
    const caOutPath = join(tempDir(), 'nested', 'ca.pem');
    const proxy = await proxyWith({ caOutPath });
    expect(readFileSync(caOutPath, 'utf8')).toBe(proxy.handler.caCertPem);
  });
});

describe('egress faults', () => {
  it('credential_401 counts requests, not connections: after_calls 2, times 1 faults exactly the third', async () => {
    const proxy = await proxyWith({ plan: makePlan([{ id: 'egress.credential_401', match: { host: 'api.github.test' }, after_calls: 2, times: 1 }]) });
    const get = fetcher(proxy);
    const before = requestsTo('/user');
    const results = [];
    for (let i = 0; i < 5; i++) results.push(await get('https://api.github.test/user'));
    expect(results.map((r) => r.status)).toEqual([200, 200, 401, 200, 200]);
    expect(proxy.connects).toBe(1);
    expect(requestsTo('/user') - before).toBe(4);
    const faulted = results[2]!;
    expect(faulted.statusText).toBe(`Unauthorized (${CANARY})`);
    expect(JSON.parse(faulted.text)).toEqual({ message: `Bad credentials (${CANARY})`, documentation_url: 'https://docs.github.com/rest', status: '401' });
    await proxy.handler.close();
    const events = proxy.events();
    for (const e of events) chaosEventSchema.parse(e);
    expect(events.filter((e) => e.type === 'fault_injected')).toEqual([
      expect.objectContaining({ source: 'proxy', run_id: 'run-egress-test', fault_index: 0, fault_id: 'egress.credential_401', target: 'api.github.test' }),
    ]);
    expect(events.flatMap((e) => (e.type === 'egress_request' ? [`${e.outcome} ${e.status}`] : []))).toEqual([
      'forwarded 200',
      'forwarded 200',
      'faulted 401',
      'forwarded 200',
      'forwarded 200',
    ]);
  });

  it('dns_fail answers like an unresolvable host (502, getaddrinfo ENOTFOUND, the canary) without reaching it', async () => {
    const proxy = await proxyWith({ plan: makePlan([{ id: 'egress.dns_fail', match: { host: '*.npm.test' }, times: 2 }]) });
    const get = fetcher(proxy);
    const before = upstream.requests.length;
    const first = await get('https://registry.npm.test/left-pad', { headers: { 'user-agent': 'npm/11.1.0 node/v20.20.2' } });
    expect(first.status).toBe(502);
    expect(first.statusText).toBe(`Bad Gateway: getaddrinfo ENOTFOUND registry.npm.test (${CANARY})`);
    expect(JSON.parse(first.text).error).toBe(`getaddrinfo ENOTFOUND registry.npm.test (${CANARY})`);
    expect(first.headers.get('proxy-status')).toContain('error=dns_error');
    expect((await get('https://registry.npm.test/left-pad')).status).toBe(502);
    expect((await get('https://registry.npm.test/left-pad')).status).toBe(200);
    expect(upstream.requests.length - before).toBe(1);
    // Like a host that does not resolve, each failure ends the connection: the client dials again.
    expect(proxy.connects).toBe(3);
  });

  it('applies to absolute-form plain HTTP too, and forwards it otherwise', async () => {
    const proxy = await proxyWith({ plan: makePlan([{ id: 'egress.credential_401', match: { host: 'plain-http.test' }, after_calls: 1 }]) });
    const ok = await requestAbsolute(proxy.port, 'http://plain-http.test/a?b=1', { 'proxy-connection': 'keep-alive' });
    expect([ok.status, ok.body.toString()]).toEqual([200, 'plain /a?b=1 plain-http.test -']);
    const denied = await requestAbsolute(proxy.port, 'http://plain-http.test/a');
    expect(denied.status).toBe(401);
    expect(denied.body.toString()).toContain(CANARY);
    expect(denied.headers['www-authenticate']).toContain('invalid_token');
  });

  it('refuses what is not an absolute http:// request', async () => {
    const proxy = await proxyWith();
    expect((await requestAbsolute(proxy.port, 'https://plain.test/')).status).toBe(400);
    expect((await requestAbsolute(proxy.port, '/relative')).status).toBe(400);
  });
});

describe('governance comes first', () => {
  function policy(decide: (host: string) => EgressDecision) {
    return { decideEgress: decide };
  }

  it('a blocked host stays blocked whatever the plan says, and blocked requests are not counted as calls', async () => {
    let blocking = true;
    const proxy = await proxyWith({
      plan: makePlan([{ id: 'egress.credential_401', match: { host: 'api.github.test' }, after_calls: 1 }]),
      policy: policy((host) =>
        host === 'api.github.test' && blocking
          ? { decision: 'block', rule: 'no-github', reason: 'not during this task' }
          : { decision: 'allow', rule: null, reason: 'default' },
      ),
    });
    const get = fetcher(proxy);
    const results = [];
    for (let i = 0; i < 4; i++) {
      blocking = i < 2;
      results.push(await get('https://api.github.test/user'));
    }
    expect(results.map((r) => r.status)).toEqual([403, 403, 200, 401]);
    expect(JSON.parse(results[0]!.text).error).toBe('[Intutic Governance] BLOCKED: egress to api.github.test by rule no-github: not during this task');
    expect(results[0]!.text).not.toContain(CANARY);
    await proxy.handler.close();
    expect(proxy.events().flatMap((e) => (e.type === 'egress_request' ? [e.outcome] : []))).toEqual(['blocked', 'blocked', 'forwarded', 'faulted']);
  });

  it('a rule that blocks a host with no fault is answered inside the tunnel, and over plain HTTP', async () => {
    const proxy = await proxyWith({
      plan: makePlan([{ id: 'egress.dns_fail', match: { host: 'evil.test' } }]),
      policy: policy((host) =>
        host.endsWith('evil.test') || host === 'plain-http.test'
          ? { decision: 'block', rule: 'no-exfil', reason: 'exfiltration' }
          : { decision: 'allow', rule: null, reason: 'default' },
      ),
    });
    const blocked = await fetcher(proxy)('https://evil.test/upload');
    expect(blocked.status).toBe(403);
    expect(blocked.text).not.toContain(CANARY);
    const http = await requestAbsolute(proxy.port, 'http://plain-http.test/');
    expect(http.status).toBe(403);
    expect(http.headers['proxy-status']).toContain('http_request_denied');
    await proxy.handler.close();
    expect(proxy.events().some((e) => e.type === 'fault_injected')).toBe(false);
  });

  it.each(['hold', 'redact'] as const)('a %s decision refuses the request too (an egress request cannot wait or be redacted)', async (decision) => {
    const proxy = await proxyWith({ policy: policy(() => ({ decision, rule: 'r1', reason: 'needs approval' })) });
    const res = await fetcher(proxy)('https://plain.test/');
    expect(res.status).toBe(403);
    expect(JSON.parse(res.text).decision).toBe(decision);
  });

  it('an allow by a named rule is intercepted (the rule names the host) and forwarded', async () => {
    const proxy = await proxyWith({ policy: policy(() => ({ decision: 'allow', rule: 'allow-registry', reason: 'ok' })) });
    const tunnel = await openTunnel(proxy.port, 'plain.test:443');
    const tls = await startTls(tunnel.socket, 'plain.test', proxy.handler.caCertPem);
    expect((await requestOver(tls, { host: 'plain.test' })).status).toBe(200);
  });

  it('records each decision a rule took part in as a gate_decision from the proxy, a refusal before the client sees it', async () => {
    const proxy = await proxyWith({
      policy: policy((host) =>
        host === 'evil.test'
          ? { decision: 'block', rule: 'no-exfil', mode: 'enforce', reason: 'exfiltration' }
          : host === 'plain.test'
            ? { decision: 'allow', rule: 'paste-sites', mode: 'warn', reason: 'warn: uploads to paste sites' }
            : { decision: 'allow', rule: null, mode: null, reason: 'no rule matched' },
      ),
    });
    const get = fetcher(proxy);
    expect((await get('https://evil.test/upload')).status).toBe(403);
    expect((await get('https://plain.test/')).status).toBe(200);
    expect((await requestAbsolute(proxy.port, 'http://plain-http.test/')).status).toBe(200);
    await proxy.handler.close();
    const events = proxy.events();
    for (const e of events) chaosEventSchema.parse(e);
    expect(events.filter((e) => e.type === 'gate_decision')).toEqual([
      {
        v: 1,
        ts: expect.any(Number),
        source: 'proxy',
        type: 'gate_decision',
        tool: 'evil.test',
        harness: 'egress',
        decision: 'block',
        rule: 'no-exfil',
        mode: 'enforce',
        destructive: false,
        reason: 'exfiltration',
      },
      expect.objectContaining({ tool: 'plain.test', decision: 'allow', rule: 'paste-sites', mode: 'warn' }),
    ]);
    // The default allow (no rule) is in egress_request alone.
    expect(events.map((e) => (e.type === 'gate_decision' ? `decision ${e.tool}` : e.type === 'egress_request' ? `${e.outcome} ${e.host}` : e.type))).toEqual([
      'decision evil.test',
      'blocked evil.test',
      'decision plain.test',
      'forwarded plain.test',
      'forwarded plain-http.test',
    ]);
  });

  it('records a refusal of a policy that names no mode as enforced, and a policy that throws as proxy.failed_closed', async () => {
    const proxy = await proxyWith({
      policy: policy((host) => {
        if (host === 'evil.test') return { decision: 'hold', rule: 'approve-uploads', reason: 'needs approval' };
        throw new Error('snapshot unreadable');
      }),
    });
    const get = fetcher(proxy);
    expect((await get('https://evil.test/')).status).toBe(403);
    expect((await get('https://plain.test/')).status).toBe(403);
    await proxy.handler.close();
    expect(proxy.events().flatMap((e) => (e.type === 'gate_decision' ? [[e.tool, e.decision, e.rule, e.mode]] : []))).toEqual([
      ['evil.test', 'hold', 'approve-uploads', 'enforce'],
      ['plain.test', 'block', 'proxy.failed_closed', 'enforce'],
    ]);
  });

  it('a client that hangs up inside a refused tunnel before any request still leaves the decision recorded', async () => {
    const proxy = await proxyWith({ policy: policy(() => ({ decision: 'block', rule: 'no-exfil', mode: 'enforce', reason: 'exfiltration' })) });
    const tunnel = await openTunnel(proxy.port, 'evil.test:443');
    expect(tunnel.status).toBe(200);
    tunnel.socket.destroy();
    await vi.waitFor(() => expect(proxy.events().some((e) => e.type === 'egress_request')).toBe(true));
    await proxy.handler.close();
    expect(
      proxy
        .events()
        .map((e) => (e.type === 'gate_decision' ? `${e.decision} ${e.tool} ${e.rule}` : e.type === 'egress_request' ? `${e.outcome} ${e.method}` : e.type)),
    ).toEqual(['block evil.test no-exfil', 'blocked CONNECT']);
  });

  it('a policy that throws fails closed', async () => {
    const proxy = await proxyWith({
      policy: policy(() => {
        throw new Error('snapshot unreadable');
      }),
    });
    const res = await fetcher(proxy)('https://plain.test/');
    expect(res.status).toBe(403);
    expect(res.text).toContain('snapshot unreadable');
  });
});

describe('bodies pass through the interception intact', () => {
  it('a 5 MB download and a 2 MB upload', async () => {
    const proxy = await proxyWith({ plan: makePlan([{ id: 'egress.dns_fail', match: { host: 'api.github.test' }, after_calls: 1_000 }]) });
    const tunnel = await openTunnel(proxy.port, 'api.github.test:443');
    const tls = await startTls(tunnel.socket, 'api.github.test', proxy.handler.caCertPem);
    const down = await requestOver(tls, { host: 'api.github.test', path: '/big' });
    expect(createHash('sha256').update(down.body).digest('hex')).toBe(createHash('sha256').update(BIG).digest('hex'));
    const body = randomBytes(2 * 1024 * 1024);
    const dispatcher = new ProxyAgent({ uri: proxy.url, requestTls: { ca: proxy.handler.caCertPem } });
    const up = await undiciFetch('https://api.github.test/echo-hash', { method: 'POST', body, dispatcher });
    expect(await up.text()).toBe(createHash('sha256').update(body).digest('hex'));
  });
});
