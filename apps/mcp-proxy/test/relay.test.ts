// The router on its own, with the real governor, planner and recorder and the two sides as arrays
// of lines: the cases a real filesystem server never produces (protocol errors to a tools/call, a
// server without listChanged, batches, progress, cancellation, pagination).
import { rmSync, readFileSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChaosEvent } from '@intutic/events';
import type { Plan, PlanFault } from '@intutic/faults';
import { FaultPlanner } from '../src/faults.ts';
import { createGovernor } from '../src/governance.ts';
import { Recorder } from '../src/recorder.ts';
import { Relay } from '../src/relay.ts';
import { Toolset } from '../src/toolset.ts';
import { scratchDir } from '@intutic/testkit';

const dirs: string[] = [];
const temp = (): string => {
  const dir = scratchDir('relay-');
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const CANARY = 'E-INTUTIC-abcdef12';

function setup(options: { faults?: Partial<PlanFault>[]; rules?: unknown[] } = {}) {
  const dir = temp();
  writeFileSync(join(dir, 'policy.json'), JSON.stringify({ rules: options.rules ?? [] }));
  const env = {
    INTUTIC_SNAPSHOT_RULES: join(dir, 'policy.json'),
    INTUTIC_APPROVED_BYPASSES: join(dir, 'none.json'),
    INTUTIC_CHAOS_EVENTS: join(dir, 'events.jsonl'),
  };
  const logs: string[] = [];
  const log = (m: string) => logs.push(m);
  const toolset = new Toolset('fs');
  const plan: Plan | null = options.faults
    ? {
        schema_version: 1,
        experiment: 'x',
        run_id: 'r',
        canary: CANARY,
        faults: options.faults.map((f, index) => ({ index, id: 'tool.error', match: {}, after_calls: 0, times: null, options: {}, ...f })),
      }
    : null;
  const toClient: string[] = [];
  const toServer: string[] = [];
  const relay = new Relay({
    governor: createGovernor({ env, cwd: dir, server: 'fs', log }),
    planner: plan ? new FaultPlanner(plan, 'fs', toolset) : null,
    toolset,
    recorder: new Recorder({ env, log, server: 'fs' }),
    log,
    toClient: (line) => toClient.push(line),
    toServer: (line) => toServer.push(line),
  });
  const events = (): ChaosEvent[] =>
    existsSync(env.INTUTIC_CHAOS_EVENTS)
      ? readFileSync(env.INTUTIC_CHAOS_EVENTS, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as ChaosEvent)
      : [];
  return { relay, toClient, toServer, logs, events };
}

const callLine = (id: number | string, name = 'read_file', args: unknown = { path: '/r/a.txt' }) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
const parsed = (lines: string[]) => lines.map((l) => JSON.parse(l) as Record<string, any>);

describe('Relay', () => {
  it('forwards notifications, progress and unknown messages byte for byte in both directions', () => {
    const { relay, toClient, toServer } = setup();
    const fromClient = [
      '{"jsonrpc":"2.0","method":"notifications/initialized"}',
      '{ "jsonrpc": "2.0", "method": "notifications/roots/list_changed" }',
      '{"jsonrpc":"2.0","id":"x","result":{"roots":[]}}',
    ];
    const fromServer = [
      '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1,"total":2}}',
      '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}',
      '{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{}}',
    ];
    fromClient.forEach((l) => relay.fromClient(l));
    fromServer.forEach((l) => relay.fromServer(l));
    expect(toServer).toEqual(fromClient.map((l) => l + '\n'));
    expect(toClient).toEqual(fromServer.map((l) => l + '\n'));
  });

  it('does not spend an inject.tool_result on a call the server answers with a JSON-RPC error', () => {
    const { relay, toClient, events } = setup({ faults: [{ id: 'inject.tool_result', options: { payload: 'PAYLOAD' }, times: 1 }] });
    relay.fromClient(callLine(1));
    const error = '{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"boom"}}';
    relay.fromServer(error);
    expect(toClient).toEqual([error + '\n']);
    relay.fromClient(callLine(2));
    relay.fromServer('{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"real"}]}}');
    expect(parsed(toClient)[1]!.result.content).toEqual([
      { type: 'text', text: 'real' },
      { type: 'text', text: 'PAYLOAD' },
    ]);
    const e = events();
    expect(e.filter((x) => x.type === 'tool_call').map((x) => (x as { ok: boolean }).ok)).toEqual([false, true]);
    expect(e.filter((x) => x.type === 'fault_injected')).toEqual([expect.objectContaining({ call_id: '2' })]);
  });

  it('advertises tools.listChanged when a toolset change is planned and the server does not; otherwise leaves initialize alone', () => {
    const init =
      '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}';
    const answer = '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}';
    const planned = setup({ faults: [{ id: 'mcp.toolset_change', options: { remove: ['x'] } }] });
    planned.relay.fromClient(init);
    planned.relay.fromServer(answer);
    expect(parsed(planned.toClient)[0]!.result).toEqual({
      protocolVersion: '2025-06-18',
      capabilities: { tools: { listChanged: true } },
      serverInfo: { name: 's', version: '1' },
    });
    const plain = setup({ faults: [{ id: 'tool.error' }] });
    plain.relay.fromClient(init);
    plain.relay.fromServer(answer);
    expect(plain.toClient).toEqual([answer + '\n']);
  });

  it('rewrites every tools/list page after a change, new tools on the last page', () => {
    const { relay, toClient } = setup({ faults: [{ id: 'mcp.toolset_change', options: { remove: ['b'], redefine: [{ name: 'z', description: 'new' }] } }] });
    const tool = (name: string) => ({ name, inputSchema: { type: 'object' } });
    relay.fromClient(callLine(1, 'a', {}));
    expect(parsed(toClient)[0]).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    relay.fromClient('{"jsonrpc":"2.0","id":2,"method":"tools/list"}');
    relay.fromServer(JSON.stringify({ jsonrpc: '2.0', id: 2, result: { tools: [tool('a'), tool('b')], nextCursor: 'c2' } }));
    relay.fromClient('{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"c2"}}');
    relay.fromServer(JSON.stringify({ jsonrpc: '2.0', id: 3, result: { tools: [tool('c')] } }));
    const [, first, second] = parsed(toClient);
    expect(first!.result).toEqual({ tools: [tool('a')], nextCursor: 'c2' });
    expect(second!.result.tools).toEqual([tool('c'), { name: 'z', description: 'new', inputSchema: { type: 'object' } }]);
  });

  it('records a cancelled call as failed and forwards the cancellation', () => {
    const { relay, toServer, toClient, events } = setup();
    relay.fromClient(callLine(5));
    const cancel = '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}';
    relay.fromClient(cancel);
    expect(toServer[1]).toBe(cancel + '\n');
    relay.fromServer('{"jsonrpc":"2.0","id":5,"result":{"content":[]}}');
    expect(toClient).toHaveLength(1);
    expect(events().filter((e) => e.type === 'tool_call')).toEqual([expect.objectContaining({ ok: false, call_id: '5' })]);
  });

  it('governs each tools/call inside a batch', () => {
    const { relay, toClient, toServer } = setup({ rules: [{ id: 'no-read', subject: 'tool', pattern: 'read_file', action: 'block', reason: 'no reading' }] });
    relay.fromClient(`[${callLine(1)},${callLine(2, 'list_directory', { path: '/r' })}]`);
    expect(parsed(toClient)).toEqual([
      { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: '[Intutic Governance] BLOCKED: no reading (rule no-read).' }], isError: true } },
    ]);
    expect(parsed(toServer)).toEqual([JSON.parse(callLine(2, 'list_directory', { path: '/r' }))]);
  });

  it('answers a tools/call whose arguments are not an object with InvalidParams and never forwards it', () => {
    const { relay, toClient, toServer } = setup();
    relay.fromClient(callLine('a', 'read_file', ['/etc/passwd']));
    expect(toServer).toEqual([]);
    expect(parsed(toClient)[0]).toMatchObject({ id: 'a', error: { code: -32602 } });
  });

  it('keeps the ids 1 and "1" apart', () => {
    const { relay, toClient } = setup({ faults: [{ id: 'inject.tool_result', match: { tool: 'read_file' }, options: { payload: 'P' } }] });
    relay.fromClient(callLine(1));
    relay.fromClient('{"jsonrpc":"2.0","id":"1","method":"ping"}');
    relay.fromServer('{"jsonrpc":"2.0","id":"1","result":{}}');
    relay.fromServer('{"jsonrpc":"2.0","id":1,"result":{"content":[]}}');
    expect(toClient[0]).toBe('{"jsonrpc":"2.0","id":"1","result":{}}\n');
    expect(parsed(toClient)[1]!.result.content).toEqual([{ type: 'text', text: 'P' }]);
  });

  it('drops lines that are not JSON, logging them', () => {
    const { relay, toClient, toServer, logs } = setup();
    relay.fromServer('Listening on stdio…');
    relay.fromClient('hello?');
    relay.fromServer('');
    expect([...toClient, ...toServer]).toEqual([]);
    expect(logs).toEqual(['dropped a line from the server that is not JSON: Listening on stdio…', 'dropped a line from the client that is not JSON: hello?']);
  });
});
