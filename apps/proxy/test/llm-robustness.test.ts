// The proxy survives what real clients and upstreams do wrong: malformed and oversized requests,
// unknown paths, a dead upstream, an upstream that breaks off, a client that hangs up mid-stream,
// garbage on the socket. Each gets a clear answer in the provider's format and the proxy keeps
// serving. Also: /health, and CONNECT / absolute-form requests reaching the egress side.
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { startScriptedModel } from '@intutic/testkit';
import { anthropicRequest, chatRequest, rawPost, startRig, type Rig } from './llm-fixtures.ts';

const script = { side_requests: 'never' as const, turns: [{ text: 'hello '.repeat(200) }] };

let rig: Rig | undefined;
const servers: Server[] = [];
afterEach(async () => {
  await rig?.close();
  rig = undefined;
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function healthy(url: string): Promise<boolean> {
  const res = await fetch(`${url}/health`).catch(() => null);
  return res?.status === 200;
}

async function listenOn(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('bad requests', () => {
  it('answers malformed JSON, a non-object body and an oversized body in the provider format, and keeps serving', async () => {
    rig = await startRig(script, { maxBodyBytes: 64 * 1024 });
    const bad = await rawPost(rig.proxy.url, '/v1/messages', '{"model": "x", "messages": [');
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body.toString())).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.stringContaining('not a JSON object') },
    });
    const array = await rawPost(rig.proxy.url, '/v1/chat/completions', '[1,2]');
    expect(array.status).toBe(400);
    expect(JSON.parse(array.body.toString())).toMatchObject({ error: { type: 'invalid_request_error' } });
    const huge = await rawPost(rig.proxy.url, '/v1/messages', JSON.stringify({ model: 'm', pad: 'x'.repeat(200_000) }));
    expect(huge.status).toBe(413);
    expect(rig.model.requests).toHaveLength(0);
    expect(await rig.calls()).toHaveLength(0);
    expect((await rawPost(rig.proxy.url, '/v1/messages', anthropicRequest())).status).toBe(200);
  });

  it('answers an unknown path with 404 in the format of the client that asked', async () => {
    rig = await startRig(script);
    const anthropic = await rawPost(rig.proxy.url, '/v1/complete', '{}', { 'anthropic-version': '2023-06-01' });
    expect(anthropic.status).toBe(404);
    expect(JSON.parse(anthropic.body.toString())).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
    const openai = await fetch(`${rig.proxy.url}/v1/models`);
    expect(openai.status).toBe(404);
    expect(await openai.json()).toMatchObject({ error: { type: 'invalid_request_error' } });
  });

  it('answers garbage on the socket with 400 and stays up', async () => {
    rig = await startRig(script);
    const { port } = new URL(rig.proxy.url);
    const reply = await new Promise<string>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1', () => socket.write('\x16\x03\x01 not http at all\r\n\r\n'));
      let data = '';
      socket.on('data', (d) => (data += d.toString()));
      socket.on('close', () => resolve(data));
      socket.on('error', () => resolve(data));
    });
    expect(reply).toMatch(/^HTTP\/1\.1 400/);
    expect(await healthy(rig.proxy.url)).toBe(true);
  });
});

describe('upstream trouble', () => {
  it('a dead upstream gets a clear 502 in the provider format, recorded as the call status', async () => {
    const dead = await listenOn(() => undefined);
    servers.pop()!.close(); // nothing listens there any more
    rig = await startRig(script, { upstreamAnthropic: dead, upstreamOpenai: dead, upstreamRetries: 1 });
    const res = await rawPost(rig.proxy.url, '/v1/messages', anthropicRequest({ stream: true }));
    expect(res.status).toBe(502);
    expect(res.headers['x-intutic-proxy-error']).toBe('upstream_unreachable');
    const body = JSON.parse(res.body.toString());
    expect(body).toMatchObject({ type: 'error', error: { type: 'api_error' } });
    expect(body.error.message).toContain(`upstream ${dead} unreachable after 2 attempts`);
    expect(body.error.message).toContain('ECONNREFUSED');
    const chat = await rawPost(rig.proxy.url, '/v1/chat/completions', chatRequest());
    expect(JSON.parse(chat.body.toString())).toMatchObject({ error: { type: 'server_error' } });
    expect((await rig.calls()).map((c) => [c.status, c.cost_usd])).toEqual([
      [502, 0],
      [502, 0],
    ]);
    expect(await healthy(rig.proxy.url)).toBe(true);
  });

  it("retries a real upstream 503 itself (the proxy's own retries) and relays the success", async () => {
    let hits = 0;
    const flaky = await listenOn((req, res) => {
      req.resume();
      req.on('end', () => {
        hits++;
        if (hits <= 2) {
          res.writeHead(503, { 'content-type': 'application/json' });
          res.end('{"type":"error","error":{"type":"api_error","message":"busy"}}');
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ model: 'claude-sonnet-4-5', usage: { input_tokens: 10, output_tokens: 5 } }));
      });
    });
    rig = await startRig(script, { upstreamAnthropic: flaky, upstreamRetries: 2 });
    const res = await rawPost(rig.proxy.url, '/v1/messages', anthropicRequest());
    expect(res.status).toBe(200);
    expect(hits).toBe(3);
    expect((await rig.calls()).map((c) => c.status)).toEqual([200]);
  });

  it('an upstream that breaks off mid-stream breaks off the client too, and the call is recorded', async () => {
    const breaking = await listenOn((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(
        'event: message_start\ndata: {"type":"message_start","message":{"model":"claude-sonnet-4-5","usage":{"input_tokens":42,"output_tokens":1}}}\n\n',
      );
      setTimeout(() => res.socket?.destroy(), 50);
    });
    rig = await startRig(script, { upstreamAnthropic: breaking });
    const res = await rawPost(rig.proxy.url, '/v1/messages', anthropicRequest({ stream: true }));
    expect(res.aborted).toBe(true);
    expect(res.body.toString()).toContain('message_start');
    const [call] = await rig.calls();
    expect(call).toMatchObject({ status: 200, stream: true, input_tokens: 42 });
    expect(rig.log.lines.some((l) => l.includes('upstream broke off'))).toBe(true);
    expect(await healthy(rig.proxy.url)).toBe(true);
  });
});

describe('client disconnects', () => {
  it('a client hanging up mid-stream stops the upstream stream and the call is still recorded', async () => {
    // An upstream that streams until someone hangs up on it: only the proxy passing the client's
    // hang-up on ends it.
    let upstreamClosed!: () => void;
    const closed = new Promise<'closed'>((resolve) => (upstreamClosed = () => resolve('closed')));
    const endless = await listenOn((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(
        'event: message_start\ndata: {"type":"message_start","message":{"model":"claude-sonnet-4-5","usage":{"input_tokens":42,"output_tokens":1}}}\n\n',
      );
      const timer = setInterval(
        () => res.write('event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"z"}}\n\n'),
        20,
      );
      res.on('close', () => {
        clearInterval(timer);
        upstreamClosed();
      });
    });
    rig = await startRig(script, { upstreamAnthropic: endless });
    await new Promise<void>((resolve, reject) => {
      const req = request(new URL('/v1/messages', rig!.proxy.url), { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', () => undefined);
      req.setTimeout(5000, () => reject(new Error('no first chunk')));
      req.end(anthropicRequest({ stream: true }));
    });
    // The bound only keeps a proxy that never hangs up from hanging the test.
    const stillOpen = new Promise<'still open'>((resolve) => setTimeout(() => resolve('still open'), 10_000).unref());
    expect(await Promise.race([closed, stillOpen]), 'the upstream stream ends once the client has hung up').toBe('closed');
    const calls = await (async () => {
      for (let i = 0; i < 50; i++) {
        const c = await rig.calls();
        if (c.length > 0) return c;
      }
      return [];
    })();
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ status: 200, stream: true, input_tokens: 42 });
    expect(rig.log.lines.some((l) => l.includes('client disconnected'))).toBe(true);
    expect(rig.log.lines.some((l) => l.includes('upstream broke off'))).toBe(false);
    expect((await rawPost(rig.proxy.url, '/v1/chat/completions', chatRequest())).status).toBe(200);
  });
});

describe('health and the egress side', () => {
  it('answers /health with 200 while serving, and nothing after close', async () => {
    rig = await startRig(script);
    const res = await fetch(`${rig.proxy.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
    const url = rig.proxy.url;
    await rig.close();
    rig = undefined;
    expect(await healthy(url)).toBe(false);
  });

  it('routes CONNECT and absolute-form requests to the egress proxy on the same port', async () => {
    // The egress side refuses loopback unless an override names it (so the sandbox cannot reach the
    // host through the proxy): reach a second scripted model as model.test through an override.
    const upstream = await startScriptedModel({ script });
    onTestFinished(() => upstream.close());
    const upstreamPort = new URL(upstream.url).port;
    rig = await startRig(script, { hostOverrides: { 'model.test': `127.0.0.1:${upstreamPort}` } });
    const target = new URL(`http://model.test:${upstreamPort}`);
    const proxyPort = Number(new URL(rig.proxy.url).port);
    // CONNECT to the scripted model, then speak HTTP through the tunnel.
    const tunneled = await new Promise<string>((resolve, reject) => {
      const socket = connect(proxyPort, '127.0.0.1', () => socket.write(`CONNECT ${target.host} HTTP/1.1\r\nHost: ${target.host}\r\n\r\n`));
      let data = '';
      let sent = false;
      socket.on('data', (d) => {
        data += d.toString();
        if (!sent && data.includes('\r\n\r\n')) {
          sent = true;
          const body = anthropicRequest();
          socket.write(
            `POST /v1/messages HTTP/1.1\r\nHost: ${target.host}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
          );
        }
      });
      socket.on('close', () => resolve(data));
      socket.on('error', reject);
    });
    expect(tunneled).toMatch(/^HTTP\/1\.1 200/);
    expect(tunneled).toContain('"type":"message"');
    // An absolute-form request is forwarded, not treated as an LLM route.
    const forwarded = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: proxyPort,
          method: 'POST',
          path: `http://model.test:${upstreamPort}/v1/messages`,
          headers: { 'content-type': 'application/json' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(anthropicRequest());
    });
    expect(forwarded).toBe(200);
    expect(upstream.requests).toHaveLength(2);
    // Neither is a model call of the LLM side: no llm_call.
    expect(await rig.calls()).toHaveLength(0);
  });
});
