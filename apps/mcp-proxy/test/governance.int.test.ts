// Governance on tools/call through the proxy, with a policy snapshot in a temp dir named by
// INTUTIC_SNAPSHOT_RULES: block, hold and redact answered the MCP way, each call recorded, and no
// fault ever turning a refusal into anything else.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ChaosEvent } from '@intutic/events';
import { connect, readEvents, workspace, writePlan, writePolicy, type Connected, type Workspace, removeWorkspaces } from './harness.ts';

const sessions: Connected[] = [];
afterEach(async () => {
  for (const s of sessions.splice(0)) await s.client.close();
  removeWorkspaces();
});

const POLICY = {
  version: 1,
  rules: [
    { id: 'no-env', subject: 'path', pattern: '**/.env', action: 'block', mode: 'enforce', reason: 'secrets stay put' },
    { id: 'moves-need-approval', subject: 'tool', pattern: 'mcp__fs__move_file', action: 'hold', mode: 'enforce', reason: 'moves need a human' },
    { id: 'api-keys', subject: 'content', pattern: '/sk-[A-Za-z0-9]{16,}/', action: 'redact', mode: 'enforce', reason: 'API keys never leave' },
    { id: 'watch-dirs', subject: 'tool', pattern: 'create_directory', action: 'block', mode: 'warn', reason: 'just watching' },
  ],
};

async function governed(): Promise<{ ws: Workspace; s: Connected }> {
  const ws = workspace();
  writeFileSync(join(ws.root, '.env'), 'TOKEN=hunter2\n');
  writePolicy(ws, POLICY);
  const s = await connect(ws, 'proxy');
  sessions.push(s);
  return { ws, s };
}

const call = (s: Connected, name: string, args: Record<string, unknown>) => s.client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
const text = (r: CallToolResult): string => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('|');
const decisions = (events: ChaosEvent[]) => events.filter((e): e is Extract<ChaosEvent, { type: 'gate_decision' }> => e.type === 'gate_decision');
const outcomes = (events: ChaosEvent[]) => events.filter((e): e is Extract<ChaosEvent, { type: 'tool_call' }> => e.type === 'tool_call');

describe('governance on tools/call', () => {
  it('blocks with an isError result carrying the reason; the server never sees the call', async () => {
    const { ws, s } = await governed();
    const result = await call(s, 'read_file', { path: join(ws.root, '.env') });
    expect(result).toEqual({ content: [{ type: 'text', text: '[Intutic Governance] BLOCKED: secrets stay put (rule no-env).' }], isError: true });
    expect(JSON.stringify(result)).not.toContain('hunter2');
    const [decision] = decisions(readEvents(ws));
    expect(decision).toMatchObject({
      source: 'mcp-proxy',
      tool: 'read_file',
      decision: 'block',
      rule: 'no-env',
      mode: 'enforce',
      destructive: false,
      harness: 'mcp',
      server: 'fs',
      reason: 'secrets stay put',
    });
    expect(outcomes(readEvents(ws))).toEqual([
      expect.objectContaining({ tool: 'read_file', ok: false, call_id: decision!.call_id, input_hash: decision!.input_hash }),
    ]);
  });

  it('holds with HELD and the reason; the file is not moved', async () => {
    const { ws, s } = await governed();
    const result = await call(s, 'move_file', { source: join(ws.root, 'notes.txt'), destination: join(ws.root, 'moved.txt') });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe('[Intutic Governance] HELD: moves need a human (rule moves-need-approval). The call needs an approval and did not run.');
    expect(existsSync(join(ws.root, 'notes.txt'))).toBe(true);
    expect(decisions(readEvents(ws))[0]).toMatchObject({ decision: 'hold', rule: 'moves-need-approval' });
  });

  it('redacts by forwarding the redacted input: the server writes the redacted text', async () => {
    const { ws, s } = await governed();
    const result = await call(s, 'write_file', { path: join(ws.root, 'config.txt'), content: 'key = sk-abcdefghijklmnopqrstuv\n' });
    expect(result.isError).toBeFalsy();
    expect(readFileSync(join(ws.root, 'config.txt'), 'utf8')).toBe('key = [REDACTED:api-keys]\n');
    const events = readEvents(ws);
    expect(decisions(events)[0]).toMatchObject({ decision: 'redact', rule: 'api-keys', mode: 'enforce' });
    expect(outcomes(events)[0]).toMatchObject({ tool: 'write_file', ok: true });
  });

  it('lets a warn-mode match through and records the rule', async () => {
    const { ws, s } = await governed();
    const result = await call(s, 'create_directory', { path: join(ws.root, 'sub') });
    expect(result.isError).toBeFalsy();
    expect(existsSync(join(ws.root, 'sub'))).toBe(true);
    expect(decisions(readEvents(ws))[0]).toMatchObject({ decision: 'allow', rule: 'watch-dirs', mode: 'warn' });
  });

  it('applies faults only after an allow: a blocked call stays blocked and is not counted', async () => {
    const ws = workspace();
    writeFileSync(join(ws.root, '.env'), 'TOKEN=hunter2\n');
    writePolicy(ws, POLICY);
    writePlan(ws, [
      { id: 'tool.stale_data', match: { tool: 'read_file' }, times: 1, options: { result: 'stale' } },
      { id: 'inject.tool_result', match: { tool: 'write_file' }, options: { payload: 'INJECTED' } },
    ]);
    const s = await connect(ws, 'proxy');
    sessions.push(s);
    expect(text(await call(s, 'read_file', { path: join(ws.root, '.env') }))).toContain('BLOCKED');
    const redacted = await call(s, 'write_file', { path: join(ws.root, 'k.txt'), content: 'sk-abcdefghijklmnopqrstuv' });
    expect(text(redacted)).not.toContain('INJECTED');
    // The first allowed read is the first matching call the fault counts.
    expect(text(await call(s, 'read_file', { path: join(ws.root, 'notes.txt') }))).toBe('stale');
    const injected = readEvents(ws).filter((e) => e.type === 'fault_injected');
    expect(injected).toHaveLength(1);
  });

  it('refuses every tools/call when the policy is malformed, and still serves the rest of the protocol', async () => {
    const ws = workspace();
    writeFileSync(join(ws.dir, 'broken.json'), '{ "rules": [ { "id": "x" ');
    ws.env.INTUTIC_SNAPSHOT_RULES = join(ws.dir, 'broken.json');
    const s = await connect(ws, 'proxy');
    sessions.push(s);
    expect((await s.client.listTools()).tools.length).toBeGreaterThan(0);
    const result = await call(s, 'read_file', { path: join(ws.root, 'notes.txt') });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^\[Intutic Governance\] BLOCKED: the policy could not be loaded \(.*broken\.json.*\)/);
    expect(s.stderr()).toContain('the policy could not be loaded');
  });
});
