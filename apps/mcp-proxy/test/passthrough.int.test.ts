// Transparency: what the proxy does not govern reaches each side exactly as the other sent it. The
// same bytes go to the real filesystem server directly and through the proxy; the answers must be
// byte-for-byte the same. Then the SDK's own Client, with roots (a server-to-client request).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ListRootsRequestSchema, LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { connect, FS_SERVER, proxyCommand, RawSession, readEvents, workspace, type Connected, removeWorkspaces } from './harness.ts';

const open: (RawSession | Connected)[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) {
    if (s instanceof RawSession) s.child.kill('SIGKILL');
    else await s.client.close();
  }
  removeWorkspaces();
});

/** Requests with odd spacing, key order, string ids and extra fields, as a careless client might send. */
function conversation(root: string, protocolVersion: string): string[] {
  return [
    `{ "id" : "init-1", "jsonrpc":"2.0", "method":"initialize", "params":{"protocolVersion":"${protocolVersion}","capabilities":{"experimental":{"x":{}}},"clientInfo":{"name":"raw","version":"0"},"_meta":{"k":"v"}} }`,
    '{"jsonrpc":"2.0","method":"notifications/initialized"}',
    '{"jsonrpc":"2.0","id":7,"method":"ping"}',
    '{"jsonrpc":"2.0","id":"r","method":"resources/list","params":{"cursor":"abc"}}',
    '{"jsonrpc":"2.0","id":9,"method":"prompts/get","params":{"name":"nope"}}',
    '{"jsonrpc":"2.0","id":10,"method":"tools/list","params":{"cursor":"page-2"}}',
    `{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"${join(root, 'notes.txt')}"},"_meta":{"progressToken":"tok-1"}}}`,
    '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99,"reason":"changed my mind"}}',
    '{"jsonrpc":"2.0","id":12,"method":"logging/setLevel","params":{"level":"debug"}}',
    '{"jsonrpc":"2.0","id":13,"method":"no/such/method"}',
    '{"jsonrpc":"2.0","id":14,"method":"tools/list"}',
  ];
}

/** Send the conversation; return the answers and the bytes the server itself read (tee'd to a file). */
async function replay(via: 'direct' | 'proxy', protocolVersion: string): Promise<{ answers: string[]; serverRead: string; sent: string }> {
  const ws = workspace();
  const log = join(ws.dir, 'server-stdin.log');
  const server = ['sh', '-c', 'tee "$0" | exec "$1" "$2" "$3"', log, process.execPath, FS_SERVER, ws.root];
  const command =
    via === 'direct'
      ? { command: server[0]!, args: server.slice(1) }
      : { command: proxyCommand.command, args: [...proxyCommand.args, '--name', 'fs', '--', ...server] };
  const session = new RawSession(ws, via, { command });
  open.push(session);
  const lines = conversation(ws.root, protocolVersion);
  for (const line of lines) session.send(line);
  // Every request except the two notifications is answered.
  const answers = await session.waitForLines(lines.length - 2);
  await new Promise((resolve) => setTimeout(resolve, 300)); // nothing unasked-for follows
  expect(session.lines).toHaveLength(answers.length);
  const scrub = (text: string): string => text.replaceAll(ws.root, '/ROOT');
  return { answers: answers.map(scrub), serverRead: scrub(readFileSync(log, 'utf8')), sent: scrub(lines.join('\n') + '\n') };
}

describe('pass-through against the real filesystem server', () => {
  it.each([LATEST_PROTOCOL_VERSION, ...SUPPORTED_PROTOCOL_VERSIONS.slice(1), '2099-01-01'])(
    'answers are byte-for-byte those of a direct connection (protocol %s)',
    async (version) => {
      const [direct, proxied] = await Promise.all([replay('direct', version), replay('proxy', version)]);
      // The server read exactly the bytes the client wrote, odd spacing and all…
      expect(proxied.serverRead).toBe(proxied.sent);
      expect(direct.serverRead).toBe(direct.sent);
      // …and the client read exactly what the server answered directly.
      expect(proxied.answers).toEqual(direct.answers);
      expect(proxied.answers.some((line) => line.includes('the real notes'))).toBe(true);
    },
  );

  it('relays server-to-client requests (roots/list) and their answers like a direct connection', async () => {
    const runs = [];
    for (const via of ['direct', 'proxy'] as const) {
      const ws = workspace();
      const session = await connect(ws, via, { capabilities: { roots: { listChanged: true } } });
      open.push(session);
      let asked = 0;
      session.client.setRequestHandler(ListRootsRequestSchema, async () => {
        asked++;
        return { roots: [{ uri: `file://${ws.root}`, name: 'the root' }] };
      });
      await session.client.sendRootsListChanged();
      await new Promise((resolve) => setTimeout(resolve, 500));
      const allowed = await session.client.callTool({ name: 'list_allowed_directories', arguments: {} });
      runs.push({
        asked: asked > 0,
        allowed: JSON.stringify(allowed).replaceAll(ws.root, '/ROOT'),
        version: session.client.getServerVersion(),
        capabilities: session.client.getServerCapabilities(),
      });
    }
    expect(runs[0]!.asked).toBe(true);
    expect(runs[1]).toEqual(runs[0]);
  });

  it('records every tools/call with an allow decision and its outcome, even with no plan', async () => {
    const ws = workspace();
    ws.env.INTUTIC_CHAOS_EVENTS = ws.events;
    const session = await connect(ws, 'proxy');
    open.push(session);
    await session.client.callTool({ name: 'read_file', arguments: { path: join(ws.root, 'notes.txt') } });
    await session.client.callTool({ name: 'read_file', arguments: { path: join(ws.root, 'missing.txt') } });
    const events = readEvents(ws);
    expect(events.map((e) => e.type)).toEqual(['gate_decision', 'tool_call', 'gate_decision', 'tool_call']);
    expect(events[0]).toMatchObject({
      source: 'mcp-proxy',
      tool: 'read_file',
      decision: 'allow',
      rule: null,
      mode: null,
      destructive: false,
      harness: 'mcp',
      server: 'fs',
    });
    expect(events[1]).toMatchObject({
      tool: 'read_file',
      ok: true,
      server: 'fs',
      call_id: expect.any(String),
      input_hash: (events[0] as { input_hash: string }).input_hash,
    });
    expect(events[3]).toMatchObject({ tool: 'read_file', ok: false });
    expect(events.some((e) => e.type === 'plan_loaded')).toBe(false);
  });
});
