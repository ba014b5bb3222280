// The real proxy (startProxy, on loopback) never becomes a way inside: CONNECT and plain-HTTP requests
// to private, internal and metadata addresses, in odd notations too, are refused with the usual
// egress refusal and event before anything is dialled; an allowed private host passes; host rules
// written as an address or a CIDR decide IP literals. Nothing leaves loopback: a tripwire on the TCP
// handle's connect records (and stops, before a packet) every dial outside loopback, and names
// resolve through a table the test gives the proxy, never through DNS.
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ChaosEvent } from '@intutic/events';
import { EMPTY_POLICY, parseIpLiteral, type Policy } from '@intutic/governance';
import type { Resolver } from '../src/egress/guard.ts';
import { memoryLogger, policyFrom, startProxy, type ProxyOptions, type RunningProxy } from '../src/index.ts';
import { closeServer, listen, openTunnel, readEvents, removeTempDirs, requestAbsolute, requestOver, tempDir } from './egress-fixtures.ts';

const isLoopback = (address: string): boolean => {
  const ip = parseIpLiteral(address);
  const v4 = ip?.family === 4 ? ip.address : ip?.embeddedV4;
  return ip?.address === '::1' || (v4 !== undefined && v4 !== null && v4.startsWith('127.'));
};

/**
 * Every address outside loopback this process tried to dial. The tripwire sits on the TCP handle's
 * own connect, the last step of every path (net.connect, http agents, lookups, happy eyeballs), with
 * the final address, and fails the dial there as an unreachable network would: nothing is sent.
 */
const dialled: string[] = [];
/** Every address dialled at all, loopback included: proof the tripwire sits where dials happen. */
const everyDial: string[] = [];
interface TcpHandleClass {
  prototype: { connect(...args: unknown[]): number; connect6(...args: unknown[]): number };
}
const tcp = (process as unknown as { binding(name: string): { TCP: TcpHandleClass } }).binding('tcp_wrap').TCP;
const realConnect4 = tcp.prototype.connect;
const realConnect6 = tcp.prototype.connect6;
const ENETUNREACH = -101;

function tripwire(real: (...args: unknown[]) => number) {
  return function (this: unknown, ...args: unknown[]): number {
    const address = String(args[1]);
    everyDial.push(address);
    if (isLoopback(address)) return real.apply(this, args);
    dialled.push(address);
    return ENETUNREACH;
  };
}

/** Names resolve from this table only: nothing asks DNS. */
const NAMES: Record<string, string[]> = {
  'registry.corp.test': ['10.20.30.40'],
  'intranet.corp.test': ['10.20.30.41'],
  'metadata.corp.test': ['169.254.169.254'],
  'loopback.test': ['127.0.0.1'],
};
// Answers a turn later, as dns.lookup does (from the thread pool).
const resolve: Resolver = (hostname, _options, callback) => {
  const addresses = NAMES[hostname];
  setImmediate(() => {
    if (addresses === undefined) callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
    else
      callback(
        null,
        addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
      );
  });
};

let inside: Server;
let insidePort: number;
let accepted = 0;
let proxy: RunningProxy | undefined;
let eventsPath = '';

beforeAll(async () => {
  tcp.prototype.connect = tripwire(realConnect4);
  tcp.prototype.connect6 = tripwire(realConnect6);
  inside = createServer((req, res) => {
    req.resume();
    res.end('inside');
  });
  inside.on('connection', () => (accepted += 1));
  insidePort = await listen(inside);
});

afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  accepted = 0;
  dialled.length = 0;
});

afterAll(async () => {
  tcp.prototype.connect = realConnect4;
  tcp.prototype.connect6 = realConnect6;
  await closeServer(inside);
  removeTempDirs();
});

function proxyOptions(options: Partial<ProxyOptions> = {}): ProxyOptions {
  eventsPath = `${tempDir()}/events.jsonl`;
  return {
    // Never the real providers: nothing here makes a model call, and nothing may leave loopback.
    upstreamAnthropic: 'http://127.0.0.1:9',
    upstreamOpenai: 'http://127.0.0.1:9',
    eventsPath,
    logger: memoryLogger(),
    policy: policyFrom(EMPTY_POLICY),
    env: {},
    resolve,
    ...options,
  };
}

/** A proxy of this test's own, closed after it. */
async function start(options: Partial<ProxyOptions> = {}): Promise<RunningProxy> {
  proxy = await startProxy(proxyOptions(options));
  return proxy;
}

/** The egress lines, once the proxy has closed and flushed them. */
async function egressEvents(): Promise<ChaosEvent[]> {
  await proxy?.close();
  proxy = undefined;
  return readEvents(eventsPath).filter((e) => e.type === 'egress_request');
}

function curl(args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((done) => {
    execFile('curl', ['-sS', '--max-time', '20', ...args], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } }, (error, stdout, stderr) =>
      done({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, output: stdout + stderr }),
    );
  });
}

describe('private and internal destinations are refused before anything is dialled', () => {
  // One proxy with the defaults for the table below (a proxy costs two RSA keys).
  let shared: RunningProxy;
  beforeAll(async () => {
    shared = await startProxy(proxyOptions());
  });
  afterAll(() => shared.close());

  it('(the tripwire sees every dial this process makes)', async () => {
    everyDial.length = 0;
    const socket = connect(insidePort, '127.0.0.1');
    await new Promise((done, fail) => socket.once('connect', done).once('error', fail));
    socket.destroy();
    expect(everyDial).toEqual(['127.0.0.1']);
  });

  it.each([
    '10.0.0.1:443',
    '172.17.0.2:2375',
    '192.168.1.1:80',
    '100.64.0.1:443',
    '169.254.169.254:80',
    '[fd00:ec2::254]:80',
    '[fd12::1]:443',
    '[fe80::1%25eth0]:443',
    '[::ffff:10.0.0.1]:443',
    '[::ffff:a00:1]:443',
    '[0:0:0:0:0:ffff:a9fe:a9fe]:80',
    '[::10.0.0.1]:443',
    '[64:ff9b::a00:1]:443',
    '[2002:a00:1::]:443',
    '167772161:443',
    '0xa.1:443',
    '012.0.0.1:443',
    '10.1:443',
    '10.0.0.1.:443',
    '0251.0376.0251.0376:80',
    '192.0.0.8:443',
    '198.18.0.1:443',
    '240.0.0.1:443',
    '255.255.255.255:443',
  ])('CONNECT %s: 403, nothing dialled', async (target) => {
    const { port } = shared;
    const tunnel = await openTunnel(port, target);
    expect(tunnel.status).toBe(403);
    expect(tunnel.response).toContain('destination not allowed');
    expect(tunnel.response).toMatch(/proxy-status: intutic; error=destination_ip_prohibited/i);
    expect(dialled).toEqual([]);
  });

  it.each([
    'http://10.0.0.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[::ffff:a9fe:a9fe]/',
    'http://0xa9fea9fe/',
    'http://172.16.0.1:8080/',
    'http://[fd00:ec2::254]/',
  ])('GET %s (plain HTTP): 403, nothing dialled', async (url) => {
    const { port } = shared;
    const response = await requestAbsolute(port, url);
    expect(response.status).toBe(403);
    expect(response.body.toString()).toContain('destination not allowed');
    expect(dialled).toEqual([]);
  });

  it('loopback in any notation never reaches the loopback service behind it', async () => {
    const { port } = shared;
    for (const host of ['127.0.0.1', '0x7f.1', '2130706433', '127.1', '0177.0.0.1', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[::127.0.0.1]', '[::1]']) {
      expect((await openTunnel(port, `${host}:${insidePort}`)).status, host).toBe(403);
      expect((await requestAbsolute(port, `http://${host}:${insidePort}/`)).status, host).toBe(403);
    }
    expect(accepted).toBe(0);
  });

  it('a name resolving to a private or metadata address is refused after resolution, before a dial', async () => {
    const { port } = shared;
    expect((await openTunnel(port, 'intranet.corp.test:443')).status).toBe(403);
    expect((await openTunnel(port, 'metadata.corp.test:80')).status).toBe(403);
    expect((await requestAbsolute(port, 'http://intranet.corp.test/')).status).toBe(403);
    expect(dialled).toEqual([]);
  });

  it('curl through the proxy gets the refusal for a private literal, HTTPS (CONNECT) and plain HTTP', async () => {
    const { url } = shared;
    const https = await curl(['-x', url, 'https://[::ffff:10.0.0.1]/']);
    expect(https.code).not.toBe(0);
    expect(https.output).toMatch(/403/);
    const http = await curl(['-x', url, 'http://2130706433/']);
    expect(http.output).toContain('destination not allowed');
    expect(dialled).toEqual([]);
  });

  it('records each refusal as the egress_request it always was (failed, 403), under the canonical address', async () => {
    const { port } = await start();
    await openTunnel(port, '0xa.1:443');
    await requestAbsolute(port, 'http://[::ffff:a9fe:a9fe]/');
    expect(await egressEvents()).toEqual([
      expect.objectContaining({ type: 'egress_request', source: 'proxy', host: '10.0.0.1', method: 'CONNECT', outcome: 'failed', status: 403 }),
      expect.objectContaining({ type: 'egress_request', source: 'proxy', host: '::ffff:a9fe:a9fe', method: 'GET', outcome: 'failed', status: 403 }),
    ]);
  });
});

describe('an allowed private host passes', () => {
  it('an allowed address, CONNECT and plain HTTP, in any notation of it', async () => {
    const { port } = await start({ allowPrivateHosts: ['127.0.0.1'] });
    const tunnel = await openTunnel(port, `0x7f.1:${insidePort}`);
    expect(tunnel.status).toBe(200);
    expect((await requestOver(tunnel.socket, { host: 'inside.test' })).body.toString()).toBe('inside');
    tunnel.socket.destroy();
    const response = await requestAbsolute(port, `http://127.0.0.1:${insidePort}/`);
    expect([response.status, response.body.toString()]).toEqual([200, 'inside']);
    expect(accepted).toBe(2);
    // Only what was named: the rest of loopback stays shut.
    expect((await openTunnel(port, `127.0.0.2:${insidePort}`)).status).toBe(403);
    expect(dialled).toEqual([]);
  });

  it('INTUTIC_ALLOW_PRIVATE_HOSTS does the same', async () => {
    const { port } = await start({ env: { INTUTIC_ALLOW_PRIVATE_HOSTS: 'registry.corp.test, 127.0.0.1' } });
    const tunnel = await openTunnel(port, `loopback.test:${insidePort}`);
    expect(tunnel.status).toBe(200);
    tunnel.socket.destroy();
  });

  it('an unlisted name that resolves to a private address is refused before any dial, as is the literal', async () => {
    // That an allowed name passes the guard is shown without dialling (egress-addresses.test.ts):
    // a test never sends a packet to a private address, so it never lets one through to the dial.
    const { port } = await start({ allowPrivateHosts: ['registry.corp.test'] });
    expect((await openTunnel(port, 'intranet.corp.test:443')).status).toBe(403);
    expect((await openTunnel(port, '10.20.30.40:443')).status).toBe(403);
    expect(dialled).toEqual([]);
  });

  it('a name never opens loopback or metadata, though naming the address does', async () => {
    const { port } = await start({ allowPrivateHosts: ['loopback.test', 'metadata.corp.test'] });
    expect((await openTunnel(port, `loopback.test:${insidePort}`)).status).toBe(403);
    expect((await openTunnel(port, 'metadata.corp.test:80')).status).toBe(403);
    expect(accepted).toBe(0);
    expect(dialled).toEqual([]);
  });

  it('an explicit host override is still trusted, as before', async () => {
    const { port } = await start({ hostOverrides: { 'service.test': `127.0.0.1:${insidePort}` } });
    const tunnel = await openTunnel(port, `service.test:${insidePort}`);
    expect(tunnel.status).toBe(200);
    tunnel.socket.destroy();
  });

  it('an entry that is neither a name, an address nor a CIDR stops the proxy at start', async () => {
    await expect(start({ allowPrivateHosts: ['10.1'] })).rejects.toMatchObject({ code: 'E_CONFIG_INVALID' });
  });
});

describe('host rules written as an address or a CIDR decide IP literals', () => {
  const policy: Policy = {
    rules: [{ id: 'no-test-net-3', subject: 'host', pattern: '203.0.113.0/24', action: 'block', mode: 'enforce', reason: 'documentation range' }],
    bypasses: [],
    sources: { snapshot: 'test', bypasses: null },
    missing: { snapshot: false },
  };

  it('block a public address in any notation, over plain HTTP and inside a CONNECT, before a dial', async () => {
    const { port } = await start({ policy: policyFrom(policy) });
    const plain = await requestAbsolute(port, 'http://0xcb.0.113.7/');
    expect(plain.status).toBe(403);
    expect(plain.body.toString()).toContain('by rule no-test-net-3');
    // A blocked host's tunnel is intercepted so the refusal reaches the client: plain HTTP inside it here.
    const tunnel = await openTunnel(port, '3405803783:80');
    expect(tunnel.status).toBe(200);
    const inner = await requestOver(tunnel.socket, { host: '203.0.113.7' });
    expect(inner.status).toBe(403);
    expect(inner.body.toString()).toContain('by rule no-test-net-3');
    tunnel.socket.destroy();
    expect(dialled).toEqual([]);
    expect(await egressEvents()).toEqual([
      expect.objectContaining({ host: '203.0.113.7', method: 'GET', outcome: 'blocked', status: 403 }),
      expect.objectContaining({ host: '203.0.113.7', method: 'GET', outcome: 'blocked', status: 403 }),
    ]);
  });
});
