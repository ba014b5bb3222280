// Real providers are reached over TLS. The scripted upstream sits behind a TLS terminator with a
// certificate for `localhost` from a test CA, which the proxy is told to trust (`upstreamCa`): a
// stream and a JSON answer pass byte for byte, usage is read from the decrypted bytes, and
// without the CA the proxy refuses the upstream with a clear 502 instead of talking to it.
import { connect, type Socket } from 'node:net';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import { startScriptedModel, type ScriptedModel } from '@intutic/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCertificateAuthority } from '../src/egress/ca.ts';
import { anthropicRequest, rawPost, startRig, type Rig } from './llm-fixtures.ts';

const USAGE = { input_tokens: 321, output_tokens: 45, cache_creation_input_tokens: 0, cache_read_input_tokens: 7 };
const script = { side_requests: 'never' as const, chunk_chars: 512, turns: [{ text: 'secure '.repeat(3000), usage: USAGE }] };

let model: ScriptedModel;
let terminator: TlsServer;
let origin: string;
let caPem: string;
const sockets = new Set<Socket>();

beforeAll(async () => {
  const ca = createCertificateAuthority();
  caPem = ca.caCertPem;
  model = await startScriptedModel({ script });
  const target = new URL(model.url);
  terminator = createTlsServer({ SNICallback: (name, cb) => cb(null, ca.contextFor(name)) }, (tls) => {
    const plain = connect(Number(target.port), target.hostname);
    sockets.add(plain);
    tls.pipe(plain).pipe(tls);
    tls.on('error', () => plain.destroy());
    plain.on('error', () => tls.destroy());
  });
  await new Promise<void>((r) => terminator.listen(0, '127.0.0.1', r));
  origin = `https://localhost:${(terminator.address() as { port: number }).port}`;
});
afterAll(async () => {
  await rig?.close();
  for (const s of sockets) s.destroy();
  await new Promise((r) => terminator.close(r));
  await model.close();
});

let rig: Rig | undefined;

describe('an upstream over TLS', () => {
  beforeAll(async () => {
    rig = await startRig(script, { upstreamAnthropic: origin, upstreamCa: [caPem] });
  });

  it('passes a stream and a JSON answer byte for byte and reads their usage', async () => {
    for (const stream of [true, false]) {
      const direct = await rawPost(model.url, '/v1/messages', anthropicRequest({ stream }));
      const proxied = await rawPost(rig!.proxy.url, '/v1/messages', anthropicRequest({ stream }));
      expect(proxied.status).toBe(200);
      expect(proxied.body.length).toBeGreaterThan(20_000);
      expect(proxied.body.equals(direct.body)).toBe(true);
    }
    const calls = await rig!.calls();
    expect(calls).toHaveLength(2);
    for (const call of calls) expect(call).toMatchObject({ status: 200, input_tokens: 321, output_tokens: 45, cache_read_input_tokens: 7 });
  });

  it('refuses an upstream whose certificate no trusted CA signed, with a 502 that says so', async () => {
    const untrusting = await startRig(script, { upstreamAnthropic: origin });
    try {
      const answer = await rawPost(untrusting.proxy.url, '/v1/messages', anthropicRequest());
      expect(answer.status).toBe(502);
      expect(answer.body.toString()).toMatch(/certificate/i);
    } finally {
      await untrusting.close();
    }
  });
});
