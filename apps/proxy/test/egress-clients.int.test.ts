// Does the injected egress error reach the agent through its tools? Real curl, npm, git and Node's
// fetch go through the egress proxy (HTTPS_PROXY/HTTP_PROXY, trusting the per-run CA) to loopback
// stand-ins for the GitHub API, git hosting and the npm registry, and we look for the canary in
// what each prints. MATRIX (filled from this test's assertions):
//
//   fault                  | curl | curl -f | npm | git | git: no credential | fetch: status line | fetch: body
//   -----------------------+------+---------+-----+-----+--------------------+--------------------+------------
//   (none, intercepted)    |  ok  |   ok    | ok  | ok  |         ok         |         ok         |     ok
//   egress.dns_fail        | yes  |   no    | yes | yes |         yes        |         yes        |     yes
//   egress.credential_401  | yes  |   no    | yes | yes |         no         |         yes        |     yes
//
// "ok": the command succeeded through the interception. Plain curl exits 0 on an HTTP error and prints
// the body; every other client exits non-zero. "curl -f" prints only "The requested URL
// returned error: NNN" (curl never prints the reason phrase or body in fail mode), so a script using
// -f hides any HTTP error; no response shape can change that. git without a credential answers a 401
// by asking for one, and with no helper and no terminal dies with "could not read Username" before it
// shows the body; with a credential (the revoked-token case) it prints "remote: …".
// Node 20's fetch ignores HTTPS_PROXY: a program must install a proxy dispatcher (undici's
// EnvHttpProxyAgent, as here), else its requests bypass the proxy and the sandbox firewall drops
// them. Node 22's own fetch follows HTTPS_PROXY with NODE_USE_ENV_PROXY=1 (checked by hand on 22.23:
// it prints the same 401 status line and body).
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CANARY, makePlan, removeTempDirs, startEgressProxy, startTestUpstream, tempDir, type TestUpstream } from './egress-fixtures.ts';
import { FIXTURE_PACKAGE, makeGitProjectRoot, makeNpmFixture, servicesHandler } from './egress-services.ts';

const HOSTS = { api: 'api.github.test', git: 'github.test', registry: 'registry.npm.test' };
const CLIENTS = ['curl', 'curl -f', 'npm', 'git', 'git: no credential', 'fetch: status line', 'fetch: body'] as const;
type Client = (typeof CLIENTS)[number];

const undiciPath = createRequire(import.meta.url).resolve('undici');

// What an agent's throwaway script typically does: throw on !ok with the status line, or print the body.
const FETCH_SCRIPT = `
const { EnvHttpProxyAgent, setGlobalDispatcher } = require(process.env.UNDICI_PATH);
setGlobalDispatcher(new EnvHttpProxyAgent());
(async () => {
  try {
    const res = await fetch(process.argv[1], { headers: { authorization: 'Bearer revoked-token' } });
    if (process.argv[2] === 'body') { console.log(res.status, await res.text()); process.exit(res.ok ? 0 : 1); }
    if (!res.ok) throw new Error('HTTP ' + res.status + ' ' + res.statusText);
    console.log(await res.text());
  } catch (error) {
    console.error(String(error), error.cause ? String(error.cause) : '');
    process.exit(1);
  }
})();
`;

interface Run {
  code: number;
  output: string;
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(cmd, args, { env, cwd, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, output: `${stdout}${stderr}` });
    });
  });
}

let dir: string;
let upstream: TestUpstream;
let overrides: Record<string, string>;

beforeAll(async () => {
  dir = tempDir('intutic-egress-clients-');
  const gitRoot = makeGitProjectRoot(dir);
  const npm = makeNpmFixture(dir);
  upstream = await startTestUpstream(servicesHandler({ gitRoot, npm, hosts: HOSTS }));
  overrides = Object.fromEntries(Object.values(HOSTS).map((h) => [h, `127.0.0.1:${upstream.port}`]));
});

afterAll(async () => {
  await upstream?.close();
  removeTempDirs();
});

async function runClient(client: Client, proxyUrl: string, caPath: string, scenario: string): Promise<Run> {
  const home = join(dir, `home-${scenario}-${client.replace(/\W+/g, '_')}`);
  const work = join(home, 'work');
  mkdirSync(work, { recursive: true });
  // Only what a sandbox would set: the proxy, a scratch HOME, and each client's way to trust the CA.
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    LANG: 'C.UTF-8',
    HTTPS_PROXY: proxyUrl,
    HTTP_PROXY: proxyUrl,
    https_proxy: proxyUrl,
    http_proxy: proxyUrl,
  };
  switch (client) {
    case 'curl':
    case 'curl -f':
      return run(
        'curl',
        [client === 'curl' ? '-sS' : '-fsS', '--cacert', caPath, '-H', 'Authorization: Bearer revoked-token', `https://${HOSTS.api}/user`],
        env,
        work,
      );
    case 'npm': {
      writeFileSync(join(home, '.npmrc'), `//${HOSTS.registry}/:_authToken=revoked-token\n`);
      writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'work', version: '1.0.0', private: true }));
      const args = [
        'install',
        FIXTURE_PACKAGE,
        '--registry',
        `https://${HOSTS.registry}/`,
        '--cafile',
        caPath,
        '--fetch-retries=0',
        '--no-audit',
        '--no-fund',
        '--no-update-notifier',
        '--cache',
        join(home, 'npm-cache'),
      ];
      return run('npm', args, env, work);
    }
    case 'git':
    case 'git: no credential': {
      // A credential helper like `gh auth git-credential`; without one git can only prompt, and may not.
      const helper = client === 'git' ? '!f() { echo username=x-access-token; echo password=revoked-token; }; f' : '';
      const gitEnv = { ...env, GIT_SSL_CAINFO: caPath, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1' };
      return run('git', ['-c', `credential.helper=${helper}`, 'clone', `https://${HOSTS.git}/acme/app.git`, join(work, 'app')], gitEnv, work);
    }
    case 'fetch: status line':
    case 'fetch: body':
      return run(
        process.execPath,
        ['-e', FETCH_SCRIPT, `https://${HOSTS.api}/user`, client === 'fetch: body' ? 'body' : 'status'],
        { ...env, NODE_EXTRA_CA_CERTS: caPath, UNDICI_PATH: undiciPath },
        work,
      );
  }
}

type Row = Record<Client, Run> & { injected: number };

async function matrixRow(scenario: string, faultId: 'egress.dns_fail' | 'egress.credential_401' | null): Promise<Row> {
  // The baseline names the hosts in a fault that never fires, so its requests are intercepted too.
  const plan = makePlan([{ id: faultId ?? 'egress.credential_401', match: { host: '*.test' }, after_calls: faultId ? 0 : 1_000_000 }]);
  const caOutPath = join(dir, `ca-${scenario}.pem`);
  const proxy = await startEgressProxy({ plan, hostOverrides: overrides, upstreamCa: upstream.caPem, caOutPath });
  try {
    const row = {} as Row;
    for (const client of CLIENTS) row[client] = await runClient(client, proxy.url, caOutPath, scenario);
    await proxy.handler.close();
    row.injected = proxy.events().filter((e) => e.type === 'fault_injected').length;
    return row;
  } finally {
    await proxy.close();
  }
}

function show(scenario: string, row: Record<Client, Run>): void {
  const lines = CLIENTS.map((c) => {
    const hit = row[c].output.split('\n').find((l) => l.includes(CANARY)) ?? row[c].output.trim().split('\n').slice(-1)[0];
    return `  ${c.padEnd(20)} exit ${row[c].code}  ${hit}`;
  });
  process.stderr.write(`[egress matrix] ${scenario}\n${lines.join('\n')}\n`);
}

/** Every client fails; plain curl exits 0 on any HTTP status (it prints the body instead). */
function expectFailedExceptPlainCurl(row: Record<Client, Run>): void {
  expect(row.curl.code).toBe(0);
  for (const client of CLIENTS.filter((c) => c !== 'curl')) expect(row[client].code, client).not.toBe(0);
}

const printsCanary = (row: Record<Client, Run>) => Object.fromEntries(CLIENTS.map((c) => [c, row[c].output.includes(CANARY)]));

describe('the injected egress error reaches real clients', () => {
  it('every client works through the interception when no fault fires', async () => {
    const row = await matrixRow('baseline', null);
    show('baseline (intercepted, no fault)', row);
    for (const client of CLIENTS) expect({ client, code: row[client].code, output: row[client].output }).toMatchObject({ client, code: 0 });
    expect(row.git.output).not.toMatch(/fatal/);
    expect(Object.values(printsCanary(row)).some(Boolean)).toBe(false);
    expect(row.injected).toBe(0);
  });

  it('egress.dns_fail: curl, npm, git and fetch print the canary; curl -f cannot', async () => {
    const row = await matrixRow('dns_fail', 'egress.dns_fail');
    show('egress.dns_fail', row);
    expectFailedExceptPlainCurl(row);
    expect(printsCanary(row)).toEqual({
      curl: true,
      'curl -f': false,
      npm: true,
      git: true,
      'git: no credential': true,
      'fetch: status line': true,
      'fetch: body': true,
    });
    // Every client's first request was answered by the fault (git and npm make more than one).
    expect(row.injected).toBeGreaterThanOrEqual(CLIENTS.length);
    expect(row.npm.output).toContain(`getaddrinfo ENOTFOUND ${HOSTS.registry}`);
    expect(row.git.output).toMatch(new RegExp(`remote: getaddrinfo ENOTFOUND ${HOSTS.git.replace('.', '\\.')}`));
  });

  it('egress.credential_401: curl, npm, git and fetch print the canary; curl -f cannot', async () => {
    const row = await matrixRow('credential_401', 'egress.credential_401');
    show('egress.credential_401', row);
    expectFailedExceptPlainCurl(row);
    expect(printsCanary(row)).toEqual({
      curl: true,
      'curl -f': false,
      npm: true,
      git: true,
      'git: no credential': false,
      'fetch: status line': true,
      'fetch: body': true,
    });
    expect(row.injected).toBeGreaterThanOrEqual(CLIENTS.length);
    expect(row['git: no credential'].output).toMatch(/could not read Username/);
    expect(row.curl.output).toContain('"message":"Bad credentials');
    expect(row.npm.output).toMatch(/E401/);
    expect(row.git.output).toMatch(/Authentication failed/);
  });
});
