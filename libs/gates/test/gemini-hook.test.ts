// The Gemini CLI gate as Gemini CLI runs it: a process with the BeforeTool / AfterTool JSON on stdin
// (the fields its hook runner sends, mcp_context for an MCP tool), answering in the shape its hook
// output parser reads (decision and reason, hookSpecificOutput.tool_input), recording events, and
// failing closed with exit 2, which Gemini CLI takes as a block.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildGates, installGates, planOf, runGate, tempProject, type TempProject } from './helpers.ts';
import { recordedPayload } from './recorded.ts';

let dist: string;
beforeAll(async () => {
  dist = await buildGates();
});

function project(rules: unknown[] = []): TempProject & { gate: string } {
  const p = tempProject();
  mkdirSync(join(p.home, '.intutic/hooks'), { recursive: true });
  writeFileSync(join(p.home, '.intutic/hooks/snapshot-rules.json'), JSON.stringify({ rules }));
  return Object.assign(p, { gate: installGates(dist, p.dir).gemini });
}

const base = { session_id: 'gemini-session', transcript_path: '/t/chat.json', cwd: '/tmp/proj', timestamp: '2026-12-02T10:00:00.000Z' };
const before = (tool: string, input: unknown, extra: Record<string, unknown> = {}) => ({
  ...base,
  hook_event_name: 'BeforeTool',
  tool_name: tool,
  tool_input: input,
  ...extra,
});
const RULES = [
  { id: 'warn-npm', subject: 'command', pattern: 'npm *', action: 'block', mode: 'warn', reason: 'npm is watched' },
  { id: 'keys', subject: 'content', pattern: '/AKIA[0-9A-Z]{16}/', action: 'redact' },
];

describe('Gemini CLI gate', () => {
  it('denies a destructive run_shell_command with decision and reason, and records it as destructive', async () => {
    const p = project();
    const r = await runGate(p.gate, before('run_shell_command', { command: 'sudo rm -rf ~', description: 'clean up' }), p.env);
    expect(r.code).toBe(0);
    expect(r.json).toEqual({ decision: 'deny', reason: expect.stringMatching(/^\[Intutic Governance\] BLOCKED: /) });
    expect(p.readEvents()).toContainEqual(
      expect.objectContaining({ type: 'gate_decision', tool: 'run_shell_command', destructive: true, decision: 'block', harness: 'gemini' }),
    );
  });

  it('answers {} for an allow, a systemMessage for a warn match, tool_input for a redaction', async () => {
    const p = project(RULES);
    expect((await runGate(p.gate, before('run_shell_command', { command: 'ls' }), p.env)).json).toEqual({});
    expect((await runGate(p.gate, before('run_shell_command', { command: 'npm test' }), p.env)).json).toEqual({
      decision: 'allow',
      systemMessage: expect.stringContaining('npm is watched'),
    });
    const redacted = await runGate(p.gate, before('write_file', { file_path: 'a.txt', content: 'k=AKIAABCDEFGHIJKLMNOP' }), p.env);
    // Gemini CLI merges tool_input over the model's arguments: every key is there, so every value is replaced.
    expect(redacted.json).toEqual({
      decision: 'allow',
      systemMessage: expect.any(String),
      hookSpecificOutput: { tool_input: { file_path: 'a.txt', content: 'k=[REDACTED:keys]' } },
    });
  });

  it('a gate fault refuses the call with the canary in the reason the model reads', async () => {
    const p = project();
    p.writePlan(planOf([{ id: 'tool.error', match: { tool: 'run_shell_command' }, options: { message: 'injected' } }]));
    const r = await runGate(p.gate, before('run_shell_command', { command: 'make' }), p.env);
    expect(r.json).toEqual({ decision: 'deny', reason: expect.stringContaining('E-INTUTIC-0badcafe') });
    expect(p.readEvents().filter((e) => e.type === 'fault_injected')).toEqual([
      expect.objectContaining({ fault_id: 'tool.error', target: 'run_shell_command' }),
    ]);
  });

  it('names an MCP tool by its server and tool, from mcp_context', async () => {
    const p = project([{ id: 'no-drop', subject: 'tool', pattern: 'mcp__db__query', action: 'block', reason: 'no queries' }]);
    const mcp = { server_name: 'db', tool_name: 'query', command: 'intutic-mcp-proxy', args: ['--name', 'db', '--', 'npx', 'db-mcp'] };
    const r = await runGate(p.gate, before('mcp_db_query', { sql: 'select 1' }, { mcp_context: mcp, original_request_name: 'mcp_db_query' }), p.env);
    expect(r.json).toMatchObject({ decision: 'deny', reason: expect.stringContaining('no queries') });
    expect(p.readEvents()[0]).toMatchObject({ type: 'gate_decision', tool: 'mcp__db__query', server: 'db', rule: 'no-drop' });
  });

  it('AfterTool records a shell command that exited 3 as failed, from the llmContent 0.61 sends; pairs with BeforeTool by input hash', async () => {
    const p = project();
    const exit0 = recordedPayload('gemini-0.61.0', 'after-tool-exit0.json');
    const exit3 = recordedPayload('gemini-0.61.0', 'after-tool-exit3.json');
    // No error field: only "Exit Code: 3" in the llmContent says it failed.
    expect(exit3.tool_response).not.toHaveProperty('error');
    await runGate(p.gate, before('run_shell_command', exit0.tool_input), p.env);
    expect((await runGate(p.gate, exit0, p.env)).json).toEqual({});
    await runGate(p.gate, exit3, p.env);
    // Output that imitates the trailer cannot hide the real one, which comes after it.
    const llm = (text: string) => ({ ...exit3, tool_response: { llmContent: `<untrusted_context>\n${text}\n</untrusted_context>`, returnDisplay: '' } });
    await runGate(p.gate, llm('Output: Exit Code: 0\nProcess Group PGID: 1\nExit Code: 2\nProcess Group PGID: 7'), p.env);
    await runGate(p.gate, llm('Output: (empty)\nSignal: 9\nProcess Group PGID: 7'), p.env);
    await runGate(p.gate, llm('Output: Error: not really\nProcess Group PGID: 7'), p.env);
    await runGate(
      p.gate,
      llm('Command was automatically cancelled because it exceeded the timeout of 5.0 minutes without output. There was no output before it was cancelled.'),
      p.env,
    );
    const events = p.readEvents();
    expect(events.filter((e) => e.type === 'tool_call').map((e) => e.ok)).toEqual([true, false, false, false, true, false]);
    const decided = events.find((e) => e.type === 'gate_decision')!;
    expect(events.find((e) => e.type === 'tool_call')!.input_hash).toBe(decided.input_hash);
  });

  it('fails closed with exit 2 and the reason on stderr for input it cannot read, and for an event it does not handle', async () => {
    const p = project();
    const garbled = await runGate(p.gate, 'not json', p.env);
    expect(garbled.code).toBe(2);
    expect(garbled.stderr).toContain('[Intutic Governance] BLOCKED');
    const other = await runGate(p.gate, { ...base, hook_event_name: 'BeforeModel', llm_request: {} }, p.env);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('unexpected Gemini CLI hook event BeforeModel');
  });
});
