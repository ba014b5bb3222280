// Each hook gate as its harness runs it — a process with the hook JSON on stdin — answering in that
// harness's documented shape, recording events, and failing closed on anything it cannot decide.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildGates, installGates, planOf, runGate, tempProject, type TempProject } from './helpers.ts';
import { copyRecordedRollout, recordedPayload } from './recorded.ts';

let dist: string;
beforeAll(async () => {
  dist = await buildGates();
});

function project(rules: unknown[] = []): TempProject & { gates: ReturnType<typeof installGates> } {
  const p = tempProject();
  mkdirSync(join(p.home, '.intutic/hooks'), { recursive: true });
  writeFileSync(join(p.home, '.intutic/hooks/snapshot-rules.json'), JSON.stringify({ rules }));
  return Object.assign(p, { gates: installGates(dist, p.dir) });
}

const claudePre = (tool: string, input: unknown, id = 'toolu_1') => ({
  session_id: 's',
  transcript_path: '/t',
  cwd: '/tmp/proj',
  hook_event_name: 'PreToolUse',
  tool_name: tool,
  tool_input: input,
  tool_use_id: id,
});
const RULES = [
  { id: 'warn-npm', subject: 'command', pattern: 'npm *', action: 'block', mode: 'warn', reason: 'npm is watched' },
  { id: 'keys', subject: 'content', pattern: '/AKIA[0-9A-Z]{16}/', action: 'redact' },
];

describe('Claude Code gate', () => {
  it('denies a destructive command in the PreToolUse shape and records it as destructive', async () => {
    const p = project();
    const r = await runGate(p.gates.claude, claudePre('Bash', { command: 'sudo rm -rf ~' }), p.env);
    expect(r.code).toBe(0);
    expect(r.json).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: expect.stringMatching(/^\[Intutic Governance\] BLOCKED: /),
      },
    });
    expect(p.readEvents()).toContainEqual(
      expect.objectContaining({ type: 'gate_decision', destructive: true, decision: 'block', harness: 'claude-code', call_id: 'toolu_1' }),
    );
  });

  it('prints nothing for an allow, a systemMessage for a warn match, updatedInput for a redaction', async () => {
    const p = project(RULES);
    expect(await runGate(p.gates.claude, claudePre('Bash', { command: 'ls' }), p.env)).toMatchObject({ code: 0, stdout: '' });
    expect((await runGate(p.gates.claude, claudePre('Bash', { command: 'npm test' }), p.env)).json).toEqual({
      systemMessage: expect.stringContaining('npm is watched'),
    });
    const redacted = await runGate(p.gates.claude, claudePre('Write', { file_path: 'a', content: 'k=AKIAABCDEFGHIJKLMNOP' }), p.env);
    expect(redacted.json).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'allow',
        permissionDecisionReason: expect.any(String),
        updatedInput: { file_path: 'a', content: 'k=[REDACTED:keys]' },
      },
    });
  });

  it('records PostToolUse outcomes from tool_response, and PostToolUseFailure as failed', async () => {
    const p = project();
    const post = (event: string, response: unknown, id: string) => ({
      ...claudePre('Bash', { command: 'make' }, id),
      hook_event_name: event,
      tool_response: response,
    });
    await runGate(p.gates.claude, post('PostToolUse', { stdout: 'ok', stderr: '', interrupted: false, isImage: false }, 'a'), p.env);
    await runGate(p.gates.claude, post('PostToolUse', { stdout: '', stderr: '', interrupted: true, isImage: false }, 'b'), p.env);
    await runGate(p.gates.claude, post('PostToolUse', { content: [{ type: 'text', text: 'x' }], isError: true }, 'c'), p.env);
    await runGate(p.gates.claude, { ...post('PostToolUseFailure', undefined, 'd'), error: 'Exit code 1' }, p.env);
    const calls = p.readEvents().filter((e) => e.type === 'tool_call');
    expect(calls.map((e) => [e.call_id, e.ok])).toEqual([
      ['a', true],
      ['b', false],
      ['c', false],
      ['d', false],
    ]);
  });

  it('decides and records the calls Claude Code 2.1.328 really sent: exit 0 ok, exit 3 (PostToolUseFailure) failed', async () => {
    const p = project();
    const recorded = (name: string) => recordedPayload('claude-code-2.1.328', name);
    for (const name of ['pre-tool-use-exit0.json', 'post-tool-use-exit0.json', 'pre-tool-use-exit3.json', 'post-tool-use-failure-exit3.json']) {
      const r = await runGate(p.gates.claude, recorded(name), p.env);
      expect(r.code, `${name}: ${r.stderr}`).toBe(0);
    }
    const events = p.readEvents();
    const decided = events.filter((e) => e.type === 'gate_decision');
    expect(decided.map((e) => [e.tool, e.decision])).toEqual([
      ['Bash', 'allow'],
      ['Bash', 'allow'],
    ]);
    const calls = events.filter((e) => e.type === 'tool_call');
    expect(calls.map((e) => [e.call_id, e.ok])).toEqual([
      [recorded('post-tool-use-exit0.json').tool_use_id, true],
      [recorded('post-tool-use-failure-exit3.json').tool_use_id, false],
    ]);
  });

  it.each([
    ['input that is not JSON', 'not json at all', /not JSON/],
    ['an input without tool_name', { hook_event_name: 'PreToolUse', tool_input: {} }, /no tool_name/],
    ['an unknown hook event', { hook_event_name: 'Stop', tool_name: 'Bash' }, /unexpected hook event Stop/],
  ])('fails closed on %s: exit 2 with the reason on stderr', async (_, payload, reason) => {
    const p = project();
    const r = await runGate(p.gates.claude, payload, p.env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/\[Intutic Governance\] BLOCKED: .*fail closed/);
    expect(r.stderr).toMatch(reason);
    expect(p.readEvents()).toContainEqual(expect.objectContaining({ type: 'gate_decision', decision: 'block', rule: 'gate.failed_closed' }));
  });

  it('fails closed on a malformed policy file, naming file:line', async () => {
    const p = project();
    writeFileSync(join(p.home, '.intutic/hooks/snapshot-rules.json'), '{\n "rules": [\n  {"id": 1}\n ]\n}');
    const r = await runGate(p.gates.claude, claudePre('Bash', { command: 'ls' }), p.env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${join(p.home, '.intutic/hooks/snapshot-rules.json')}:3: rules[0].id must be a non-empty string`);
  });

  it('fails closed, for every call, when the snapshot the run said it has is missing (INTUTIC_POLICY_REQUIRED)', async () => {
    const p = project();
    const snapshot = join(p.dir, 'governance', 'snapshot-rules.json');
    p.env.INTUTIC_SNAPSHOT_RULES = snapshot;
    // Without the flag, a missing snapshot is an empty policy: an ordinary call is allowed.
    expect(await runGate(p.gates.claude, claudePre('Bash', { command: 'ls' }), p.env)).toMatchObject({ code: 0, stdout: '' });
    p.env.INTUTIC_POLICY_REQUIRED = '1';
    for (const [tool, input] of [
      ['Bash', { command: 'ls' }],
      ['Read', { file_path: 'README.md' }],
      ['Bash', { command: 'rm -rf /' }],
    ] as const) {
      const r = await runGate(p.gates.claude, claudePre(tool, input), p.env);
      expect(r.code, `${tool} ${JSON.stringify(input)}`).toBe(2);
      expect(r.stderr).toMatch(/\[Intutic Governance\] BLOCKED: .*fail closed/);
      expect(r.stderr).toContain(`${snapshot}: the policy snapshot is missing`);
    }
    expect(p.readEvents().filter((e) => e.rule === 'gate.failed_closed')).toHaveLength(3);
  });

  it('fails closed on a plan it cannot read', async () => {
    const p = project();
    p.env.INTUTIC_CHAOS_PLAN = join(p.dir, 'missing-plan.json');
    const r = await runGate(p.gates.claude, claudePre('Bash', { command: 'ls' }), p.env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot read the chaos plan/);
  });
});

/**
 * The output rules Codex applies to a PreToolUse hook's stdout (codex-rs/hooks output schema and
 * parser): known keys only; deny needs a non-empty reason; allow is accepted only with updatedInput;
 * ask is unsupported; updatedInput only with allow.
 */
function codexOutputProblems(out: Record<string, unknown>): string[] {
  const problems: string[] = [];
  for (const k of Object.keys(out))
    if (!['continue', 'hookSpecificOutput', 'stopReason', 'suppressOutput', 'systemMessage', 'decision', 'reason'].includes(k))
      problems.push(`unknown key ${k}`);
  const h = out.hookSpecificOutput as Record<string, unknown> | undefined;
  if (h) {
    for (const k of Object.keys(h))
      if (!['additionalContext', 'hookEventName', 'permissionDecision', 'permissionDecisionReason', 'updatedInput'].includes(k))
        problems.push(`unknown hookSpecificOutput key ${k}`);
    if (h.hookEventName !== 'PreToolUse') problems.push('hookEventName');
    if (h.permissionDecision === 'allow' && h.updatedInput === undefined) problems.push('allow without updatedInput');
    if (h.permissionDecision === 'ask') problems.push('ask is unsupported');
    if (h.permissionDecision === 'deny' && !String(h.permissionDecisionReason ?? '').trim()) problems.push('deny without reason');
    if (h.updatedInput !== undefined && h.permissionDecision !== 'allow') problems.push('updatedInput without allow');
  }
  if (out.continue === false || out.stopReason !== undefined || out.suppressOutput === true) problems.push('unsupported universal field');
  return problems;
}

const codexPre = (tool: string, input: unknown, id = 'call_1') => ({
  session_id: 'thread',
  turn_id: 'turn-1',
  transcript_path: null,
  cwd: '/tmp/proj',
  hook_event_name: 'PreToolUse',
  model: 'gpt-5',
  permission_mode: 'bypassPermissions',
  tool_name: tool,
  tool_input: input,
  tool_use_id: id,
});

describe('Codex gate', () => {
  it('answers every decision in the shape Codex accepts', async () => {
    const p = project(RULES);
    p.writePlan(planOf([{ id: 'tool.error', match: { tool: 'Bash' }, after_calls: 2, times: 1, options: { message: 'injected' } }]));
    const outputs = [];
    for (const [tool, input] of [
      ['Bash', { command: 'rm -rf /' }],
      ['Bash', { command: 'ls' }],
      ['Bash', { command: 'npm ci' }],
      ['apply_patch', { command: 'x AKIAABCDEFGHIJKLMNOP' }],
      ['Bash', { command: 'make' }],
    ] as const) {
      const r = await runGate(p.gates.codex, codexPre(tool, input), p.env);
      expect(r.code).toBe(0);
      outputs.push(r.json);
      if (r.json) expect(codexOutputProblems(r.json)).toEqual([]);
    }
    expect(outputs[0]).toMatchObject({ hookSpecificOutput: { permissionDecision: 'deny' } });
    expect(outputs[1]).toBeNull(); // allow: no output, since Codex rejects a bare permissionDecision allow
    expect(outputs[2]).toEqual({ systemMessage: expect.any(String) });
    expect(outputs[3]).toMatchObject({ hookSpecificOutput: { permissionDecision: 'allow', updatedInput: { command: 'x [REDACTED:keys]' } } });
    expect(outputs[4]).toMatchObject({
      hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('E-INTUTIC-0badcafe') },
    });
    expect(p.readEvents().filter((e) => e.type === 'plan_loaded')).toEqual([expect.objectContaining({ detail: 'codex' })]);
  });

  it('decides apply_patch as a patch, not a shell command', async () => {
    const p = project();
    const patch = '*** Begin Patch\n*** Update File: run.sh\n@@\n rm -rf /\n-echo a\n+echo b\n*** End Patch';
    expect(await runGate(p.gates.codex, codexPre('apply_patch', { command: patch }), p.env)).toMatchObject({ code: 0, stdout: '' });
  });

  it('records a shell call as failed or ok from the rollout the PostToolUse names, unknown when it cannot tell (recorded, 0.169)', async () => {
    const p = project();
    const rollout = copyRecordedRollout(join(p.dir, 'rollout.jsonl'));
    const exit0: Record<string, unknown> = { ...recordedPayload('codex-0.169.0', 'post-tool-use-exit0.json'), transcript_path: rollout };
    const exit3: Record<string, unknown> = { ...recordedPayload('codex-0.169.0', 'post-tool-use-exit3.json'), transcript_path: rollout };
    // tool_response is the output alone: "bad\n" says nothing of the exit status.
    expect(exit3.tool_response).toBe('bad\n');
    await runGate(p.gates.codex, exit0, p.env);
    await runGate(p.gates.codex, exit3, p.env);
    // The agent's files cannot decide it: a link to the rollout, a FIFO, or no rollout at all.
    symlinkSync(rollout, join(p.dir, 'link.jsonl'));
    await runGate(p.gates.codex, { ...exit3, tool_use_id: 'link', transcript_path: join(p.dir, 'link.jsonl') }, p.env);
    execFileSync('mkfifo', [join(p.dir, 'fifo')]);
    await runGate(p.gates.codex, { ...exit3, tool_use_id: 'fifo', transcript_path: join(p.dir, 'fifo') }, p.env);
    await runGate(p.gates.codex, { ...exit3, tool_use_id: 'gone', transcript_path: join(p.dir, 'missing.jsonl') }, p.env);
    // A line the command itself printed into the rollout comes before Codex's own: the latest wins.
    const forged = JSON.stringify({
      type: 'event_msg',
      payload: { type: 'item_completed', item: { id: exit3.tool_use_id, exit_code: 0, status: 'completed' } },
    });
    const lines = readFileSync(rollout, 'utf8').trimEnd().split('\n');
    writeFileSync(rollout, [...lines.slice(0, -1), forged, lines.at(-1)].join('\n') + '\n');
    await runGate(p.gates.codex, exit3, p.env);
    // A structured response (an MCP result) still says itself.
    await runGate(
      p.gates.codex,
      { ...codexPre('mcp__fs__read', { path: 'x' }, 'm1'), hook_event_name: 'PostToolUse', tool_response: { isError: true } },
      p.env,
    );
    expect(
      p
        .readEvents()
        .filter((e) => e.type === 'tool_call')
        .map((e) => [e.call_id, e.ok]),
    ).toEqual([
      [exit0.tool_use_id, true],
      [exit3.tool_use_id, false],
      ['link', null],
      ['fifo', null],
      ['gone', null],
      [exit3.tool_use_id, false],
      ['m1', false],
    ]);
  });

  it('fails closed with exit 2 and a non-empty stderr (Codex blocks only then)', async () => {
    const p = project();
    const r = await runGate(p.gates.codex, '{', p.env);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().length).toBeGreaterThan(0);
  });
});

const cursorBase = { conversation_id: 'conv', generation_id: 'gen', workspace_roots: ['/tmp/proj'], cursor_version: '1.7.0' };

describe('Cursor gate', () => {
  it('beforeShellExecution: deny with user and agent messages; allow otherwise', async () => {
    const p = project();
    const deny = await runGate(
      p.gates.cursor,
      { ...cursorBase, hook_event_name: 'beforeShellExecution', command: 'git push --force', cwd: '/tmp/proj' },
      p.env,
    );
    expect(deny.json).toEqual({ permission: 'deny', user_message: expect.stringContaining('BLOCKED'), agent_message: expect.stringContaining('BLOCKED') });
    const allow = await runGate(p.gates.cursor, { ...cursorBase, hook_event_name: 'beforeShellExecution', command: 'git status', cwd: '/tmp/proj' }, p.env);
    expect(allow.json).toEqual({ permission: 'allow' });
    expect(p.readEvents()[0]).toMatchObject({ tool: 'Shell', destructive: true, harness: 'cursor' });
  });

  it('beforeMCPExecution with a JSON-string tool_input; beforeReadFile answers permission only', async () => {
    const p = project([{ id: 'env', subject: 'path', pattern: '**/.env', action: 'block' }]);
    p.writePlan(planOf([{ id: 'permission.deny_or_delay', match: { tool: 'query' }, options: { mode: 'deny' } }]));
    const mcp = await runGate(
      p.gates.cursor,
      { ...cursorBase, hook_event_name: 'beforeMCPExecution', tool_name: 'query', tool_input: '{"sql":"select 1"}', command: 'npx db-mcp' },
      p.env,
    );
    expect(mcp.json).toEqual({
      permission: 'deny',
      user_message: expect.stringContaining('E-INTUTIC-0badcafe'),
      agent_message: expect.stringContaining('DENIED'),
    });
    const read = await runGate(p.gates.cursor, { ...cursorBase, hook_event_name: 'beforeReadFile', file_path: '/tmp/proj/.env', content: 'A=1' }, p.env);
    expect(read.json).toMatchObject({ permission: 'deny' });
    const ok = await runGate(p.gates.cursor, { ...cursorBase, hook_event_name: 'beforeReadFile', file_path: '/tmp/proj/README.md', content: '#' }, p.env);
    expect(ok.json).toEqual({ permission: 'allow' });
  });

  it('refuses a redaction it cannot apply', async () => {
    const p = project(RULES);
    const r = await runGate(
      p.gates.cursor,
      { ...cursorBase, hook_event_name: 'beforeShellExecution', command: 'echo AKIAABCDEFGHIJKLMNOP', cwd: '/tmp/proj' },
      p.env,
    );
    expect(r.json).toMatchObject({ permission: 'deny', agent_message: expect.stringContaining('cannot rewrite') });
  });

  it('after events record the outcome and answer {}', async () => {
    const p = project();
    const r = await runGate(p.gates.cursor, { ...cursorBase, hook_event_name: 'afterShellExecution', command: 'ls', output: 'a', duration: 5 }, p.env);
    expect(r.json).toEqual({});
    await runGate(
      p.gates.cursor,
      { ...cursorBase, hook_event_name: 'afterMCPExecution', tool_name: 'query', tool_input: '{}', result_json: '{"isError":true}' },
      p.env,
    );
    expect(p.readEvents().map((e) => [e.type, e.tool, e.ok])).toEqual([
      ['tool_call', 'Shell', true],
      ['tool_call', 'query', false],
    ]);
  });

  it('fails closed with exit 2 and a deny', async () => {
    const p = project();
    const r = await runGate(p.gates.cursor, 'nope', p.env);
    expect(r.code).toBe(2);
    expect(r.json).toMatchObject({ permission: 'deny' });
  });
});
