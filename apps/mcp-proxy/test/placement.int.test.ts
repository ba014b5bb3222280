// Mutating faults never apply outside a sandbox: the real bin on this host (no sandbox marker) says
// so on stderr and as a warning event, answers read_file for real instead of the stale result, and
// still injects the fail-safe tool.error; the same plan in a sandbox injects the stale result.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CANARY, connect, readEvents, removeWorkspaces, workspace, writePlan, type Connected, type Via, type Workspace } from './harness.ts';

const sessions: Connected[] = [];
afterEach(async () => {
  for (const s of sessions.splice(0)) await s.client.close().catch(() => undefined);
  removeWorkspaces();
});

async function start(ws: Workspace, via: Via): Promise<Connected> {
  const session = await connect(ws, via);
  sessions.push(session);
  await session.client.listTools();
  return session;
}
const call = (s: Connected, ws: Workspace, tool: string) =>
  s.client.callTool({ name: tool, arguments: { path: join(ws.root, tool === 'read_file' ? 'notes.txt' : '.') } }) as Promise<CallToolResult>;
const text = (r: CallToolResult): string => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('|');
const plan = (ws: Workspace) =>
  writePlan(ws, [
    { id: 'tool.stale_data', match: { tool: 'read_file' }, options: { result: 'stale notes' } },
    { id: 'tool.error', match: { tool: 'list_directory' }, times: 1, options: { message: 'disk failure' } },
  ]);

describe('where the MCP proxy applies mutating faults', () => {
  it('on the host: tool.stale_data is said and not injected; tool.error still is', async () => {
    const ws = workspace();
    plan(ws);
    const s = await start(ws, 'host');
    expect(text(await call(s, ws, 'read_file'))).toBe('the real notes\n');
    const failed = await call(s, ws, 'list_directory');
    expect(failed.isError).toBe(true);
    expect(text(failed)).toContain(CANARY);
    expect(s.stderr()).toMatch(/mutating fault\(s\) 0:tool\.stale_data not applied: not inside a sandbox/);
    const events = readEvents(ws);
    expect(events.filter((e) => e.type === 'warning')).toMatchObject([{ source: 'mcp-proxy', code: 'mutating_fault_refused', faults: [0] }]);
    expect(events.filter((e) => e.type === 'fault_injected').map((e) => (e as { fault_id: string }).fault_id)).toEqual(['tool.error']);
    expect(events.find((e) => e.type === 'plan_loaded')).toMatchObject({ faults: [1] });
  });

  it('in a sandbox: the same plan injects the stale result', async () => {
    const ws = workspace();
    plan(ws);
    const s = await start(ws, 'proxy');
    expect(text(await call(s, ws, 'read_file'))).toBe('stale notes');
    expect(readEvents(ws).some((e) => e.type === 'warning')).toBe(false);
  });
});
