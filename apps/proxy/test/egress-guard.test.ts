// The proxy is the sandbox's only way out, so it must not be a way back into the host: a CONNECT or
// an absolute-form request to loopback (Redis on 127.0.0.1:6379), to a name resolving there, to the
// link-local metadata address or to one of this machine's own addresses is refused before any byte
// reaches the destination. Only an explicit host override is trusted.
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { requireOrSkip } from '@intutic/testkit';
import { forbiddenDestination } from '../src/egress/guard.ts';
import { openTunnel, requestAbsolute, startEgressProxy, type TestProxy } from './egress-fixtures.ts';

let proxy: TestProxy | undefined;
let listener: TcpServer | undefined;
let accepted = 0;

async function hostService(host: string): Promise<number> {
  accepted = 0;
  listener = createTcpServer((socket) => {
    accepted += 1;
    socket.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
  });
  await new Promise<void>((resolve) => listener!.listen(0, host, resolve));
  return (listener.address() as AddressInfo).port;
}

afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  await new Promise<void>((resolve) => (listener ? listener.close(() => resolve()) : resolve()));
  listener = undefined;
});

const ownAddress = Object.values(networkInterfaces())
  .flat()
  .find((e) => e && !e.internal && e.family === 'IPv4')?.address;
// egress-addresses.test.ts covers own addresses with injected interfaces; this reads the real ones.
const hasOwnAddress = requireOrSkip("egress guard: this machine's own address", {
  ok: ownAddress !== undefined,
  reason: 'this machine has no non-loopback IPv4 interface address to try',
});

describe('egress never leads back into the host', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.9.9.9', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['169.254.169.254', 'link-local'],
    ['224.0.0.1', 'multicast'],
  ])('refuses %s', (address) => {
    expect(forbiddenDestination(address)).toMatch(/loopback|link-local|multicast|unspecified/);
  });

  it.runIf(hasOwnAddress)("refuses this machine's own interface address", () => {
    expect(forbiddenDestination(ownAddress!)).toMatch(/own addresses/);
  });

  it('lets an ordinary public address and any name through to resolution', () => {
    expect(forbiddenDestination('93.184.216.34')).toBeNull();
    expect(forbiddenDestination('registry.example.org')).toBeNull();
  });

  it('answers a CONNECT to a loopback service with 403 and never connects to it', async () => {
    const port = await hostService('127.0.0.1');
    proxy = await startEgressProxy();
    const tunnel = await openTunnel(proxy.port, `127.0.0.1:${port}`);
    expect(tunnel.status).toBe(403);
    expect(tunnel.response).toContain('destination not allowed');
    expect(accepted).toBe(0);
  });

  it('refuses a name that resolves to loopback (the check runs on the resolved address)', async () => {
    const port = await hostService('127.0.0.1');
    proxy = await startEgressProxy();
    const tunnel = await openTunnel(proxy.port, `localhost:${port}`);
    expect(tunnel.status).toBe(403);
    expect(accepted).toBe(0);
  });

  it('refuses an absolute-form request to loopback too', async () => {
    const port = await hostService('127.0.0.1');
    proxy = await startEgressProxy();
    const response = await requestAbsolute(proxy.port, `http://127.0.0.1:${port}/`);
    expect(response.status).toBe(403);
    expect(accepted).toBe(0);
  });

  it('still dials an explicit host override, which is the operator naming the address', async () => {
    const port = await hostService('127.0.0.1');
    proxy = await startEgressProxy({ hostOverrides: { 'service.test': `127.0.0.1:${port}` } });
    const tunnel = await openTunnel(proxy.port, `service.test:${port}`);
    expect(tunnel.status).toBe(200);
    tunnel.socket.destroy();
  });
});
