// The egress proxy's pure parts: CONNECT targets and host overrides, the per-run CA's certificates,
// fault counting per request, and the shapes of the answers the proxy makes itself.
import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isIntuticError } from '@intutic/errors';
import { createCertificateAuthority } from '../src/egress/ca.ts';
import { EgressFaults } from '../src/egress/faults.ts';
import { blockedResponse, clientFlavor, credential401Response, dnsFailResponse, headerSafe, upstreamFailedResponse } from '../src/egress/responses.ts';
import { normalizeOverrides, parseAbsoluteUrl, parseConnectTarget, resolveUpstream } from '../src/egress/target.ts';
import { CANARY, makePlan } from './egress-fixtures.ts';

describe('CONNECT targets and host overrides', () => {
  it('parses host:port, IPv6 in brackets, and normalizes case and a trailing dot', () => {
    expect(parseConnectTarget('API.GitHub.com.:443')).toEqual({ host: 'api.github.com', port: 443 });
    expect(parseConnectTarget('[::1]:8443')).toEqual({ host: '::1', port: 8443 });
    expect(parseConnectTarget('10.0.0.1:80')).toEqual({ host: '10.0.0.1', port: 80 });
  });

  it.each([
    '',
    'example.com',
    ':443',
    'example.com:',
    'example.com:0',
    'example.com:65536',
    'exa mple.com:443',
    '[::1:443',
    'a..b:443',
    'http://x:80',
    'x:80:80',
    '-bad-.com:443',
  ])('refuses the malformed target %j', (target) => {
    expect(parseConnectTarget(target)).toBeNull();
  });

  it('reads absolute-form URLs and refuses origin-form', () => {
    expect(parseAbsoluteUrl('http://Example.test:8080/a/b?c=1')).toEqual({ target: { host: 'example.test', port: 8080 }, path: '/a/b?c=1', protocol: 'http:' });
    expect(parseAbsoluteUrl('http://example.test/')?.target.port).toBe(80);
    expect(parseAbsoluteUrl('/relative')).toBeNull();
    expect(parseAbsoluteUrl(undefined)).toBeNull();
  });

  it('dials the override (host:port before host) while the name stays the host', () => {
    const overrides = normalizeOverrides({ 'API.github.test': '127.0.0.1:9000', 'api.github.test:8443': '[::1]:9001' });
    expect(resolveUpstream({ host: 'api.github.test', port: 443 }, overrides)).toEqual({ address: '127.0.0.1', port: 9000, overridden: true });
    expect(resolveUpstream({ host: 'api.github.test', port: 8443 }, overrides)).toEqual({ address: '::1', port: 9001, overridden: true });
    expect(resolveUpstream({ host: 'other.test', port: 443 }, overrides)).toEqual({ address: 'other.test', port: 443, overridden: false });
  });

  it('rejects a bad override at start with a config error', () => {
    const bad: Array<Record<string, string>> = [{ 'a.test': '127.0.0.1' }, { 'a.test': 'nope:x' }, { 'bad host': '127.0.0.1:1' }];
    for (const overrides of bad) {
      try {
        normalizeOverrides(overrides);
        expect.unreachable();
      } catch (error) {
        expect(isIntuticError(error) && error.code).toBe('E_CONFIG_INVALID');
      }
    }
  });
});

describe('the per-run CA', () => {
  it('issues cached leaves with the right SAN that chain to the CA', () => {
    const ca = createCertificateAuthority();
    const root = new X509Certificate(ca.caCertPem);
    expect(root.ca).toBe(true);
    const leaf = new X509Certificate(ca.leafPemFor('API.github.test'));
    expect(leaf.subjectAltName).toBe('DNS:api.github.test');
    expect(leaf.ca).toBe(false);
    expect(leaf.checkIssued(root)).toBe(true);
    expect(leaf.verify(root.publicKey)).toBe(true);
    expect(new Date(leaf.validFrom).getTime()).toBeLessThan(Date.now());
    expect(ca.leafPemFor('api.github.test')).toBe(ca.leafPemFor('API.github.test'));
    expect(new X509Certificate(ca.leafPemFor('127.0.0.1')).subjectAltName).toBe('IP Address:127.0.0.1');
    expect(new X509Certificate(ca.leafPemFor('::1')).subjectAltName).toBe('IP Address:0:0:0:0:0:0:0:1');
  });

  it('makes a new CA per run', () => {
    const [a, b] = [createCertificateAuthority(), createCertificateAuthority()];
    expect(a.caCertPem).not.toBe(b.caCertPem);
  });
});

describe('egress fault counting', () => {
  it('skips after_calls matching requests, then injects `times` times', () => {
    const faults = new EgressFaults(makePlan([{ id: 'egress.credential_401', match: { host: 'api.github.test' }, after_calls: 2, times: 2 }]));
    const seen = Array.from({ length: 6 }, () => faults.nextCall('api.github.test')?.fault.id ?? null);
    expect(seen).toEqual([null, null, 'egress.credential_401', 'egress.credential_401', null, null]);
    expect(faults.nextCall('other.test')).toBeNull();
  });

  it('matches a leading * by suffix, ignoring case, and only names the hosts it matches', () => {
    const faults = new EgressFaults(makePlan([{ id: 'egress.dns_fail', match: { host: '*.NPM.test' } }]));
    expect(faults.namesHost('registry.npm.test')).toBe(true);
    expect(faults.namesHost('npm.test')).toBe(false);
    expect(faults.nextCall('Registry.npm.test')?.canary).toBe(CANARY);
  });

  it('lets the first listed fault answer when two are due, without spending the other', () => {
    const faults = new EgressFaults(
      makePlan([
        { id: 'egress.dns_fail', match: { host: 'a.test' }, times: 1 },
        { id: 'egress.credential_401', match: { host: 'a.test' }, times: 1 },
      ]),
    );
    expect([1, 2, 3].map(() => faults.nextCall('a.test')?.fault.id ?? null)).toEqual(['egress.dns_fail', 'egress.credential_401', null]);
  });

  it('ignores faults other components inject and needs no plan', () => {
    const faults = new EgressFaults(
      makePlan([
        { id: 'llm.rate_limit', match: { model: '*' } },
        { id: 'egress.dns_fail', match: { host: 'x.test' } },
      ]),
    );
    expect(faults.indexes).toEqual([1]);
    expect(new EgressFaults(null).namesHost('x.test')).toBe(false);
  });
});

describe('answers the proxy makes itself', () => {
  it('tells git, npm, the GitHub API and anything else apart', () => {
    expect(clientFlavor('github.com', { 'user-agent': 'git/2.39.5' })).toBe('git');
    expect(clientFlavor('registry.example', { 'user-agent': 'npm/11.1.0 node/v20' })).toBe('npm');
    expect(clientFlavor('registry.example', { 'npm-command': 'install' })).toBe('npm');
    expect(clientFlavor('api.github.com', { 'user-agent': 'curl/7.88.1' })).toBe('github');
    expect(clientFlavor('api.example.test', {})).toBe('generic');
  });

  it('dns_fail carries getaddrinfo ENOTFOUND and the canary in the reason, the body and Proxy-Status', () => {
    const r = dnsFailResponse('registry.npm.test', 'npm', CANARY);
    expect(r.status).toBe(502);
    expect(r.reason).toBe(`Bad Gateway: getaddrinfo ENOTFOUND registry.npm.test (${CANARY})`);
    expect(JSON.parse(r.body)).toMatchObject({ error: `getaddrinfo ENOTFOUND registry.npm.test (${CANARY})`, code: 'ENOTFOUND' });
    expect(r.headers['proxy-status']).toContain('error=dns_error');
    expect(r.headers.connection).toBe('close');
    expect(dnsFailResponse('github.com', 'git', CANARY).headers['content-type']).toMatch(/^text\/plain/);
  });

  it("credential_401 answers in GitHub's shape, npm's, git's text, or a generic JSON, always with the canary", () => {
    const github = credential401Response('api.github.com', 'github', CANARY);
    expect(github.status).toBe(401);
    expect(JSON.parse(github.body)).toEqual({ message: `Bad credentials (${CANARY})`, documentation_url: 'https://docs.github.com/rest', status: '401' });
    expect(github.headers['www-authenticate']).toBeDefined();
    const npm = credential401Response('registry.example', 'npm', CANARY);
    expect(JSON.parse(npm.body).error).toContain(CANARY);
    // npm drops the message when WWW-Authenticate names Bearer or Basic.
    expect(npm.headers['www-authenticate']).toBeUndefined();
    const git = credential401Response('github.com', 'git', CANARY);
    expect(git.headers['content-type']).toMatch(/^text\/plain/);
    expect(git.headers['www-authenticate']).toBe('Basic realm="GitHub"');
    const generic = credential401Response('api.example.test', 'generic', CANARY);
    expect(generic.headers['www-authenticate']).toContain(CANARY);
    for (const r of [github, npm, git, generic]) expect(`${r.reason} ${r.body}`.split(CANARY).length).toBeGreaterThan(2);
  });

  it('a block names the rule and reason and carries no canary', () => {
    const r = blockedResponse('evil.test', 'generic', { decision: 'block', rule: 'no-evil', reason: 'exfiltration risk' });
    expect(r.status).toBe(403);
    expect(JSON.parse(r.body).error).toBe('[Intutic Governance] BLOCKED: egress to evil.test by rule no-evil: exfiltration risk');
    expect(blockedResponse('h.test', 'git', { decision: 'hold', rule: null, reason: 'r' }).body).toContain('HELD');
  });

  it('an upstream failure is a 502 (504 on timeout) that says what failed', () => {
    const refused = upstreamFailedResponse('a.test', 443, 'generic', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }));
    expect(refused.status).toBe(502);
    expect(refused.headers['proxy-status']).toContain('error=connection_refused');
    expect(JSON.parse(refused.body).error).toContain('ECONNREFUSED');
    expect(upstreamFailedResponse('a.test', 443, 'generic', Object.assign(new Error('t'), { code: 'ETIMEDOUT' })).status).toBe(504);
  });

  it('keeps reason phrases and header values writable', () => {
    expect(headerSafe('règle\r\nX-Injected: 1')).toBe('r?gle??X-Injected: 1');
    const r = blockedResponse('h.test', 'generic', { decision: 'block', rule: 'r', reason: 'line\r\nbreak "quoted"' });
    expect(r.headers['proxy-status']).not.toMatch(/[\r\n]/);
  });
});
