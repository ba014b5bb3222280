import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { IntuticError } from '@intutic/errors';
import { applyConnect, planConnect, renderConnectDiff } from '../src/index.ts';
import { buildGates, tempProject } from './helpers.ts';

let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  env = { INTUTIC_GATES_DIR: await buildGates() };
});

const connect = (dir: string) => {
  const plan = planConnect(dir, env);
  applyConnect(plan);
  return plan;
};
const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, any>;

function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out[p.slice(dir.length)] = readFileSync(p, 'utf8');
    }
  };
  walk(dir);
  return out;
}

describe('intutic connect', () => {
  it('installs the gates and registers them with absolute paths for every harness', () => {
    const { dir } = tempProject();
    connect(dir);
    for (const f of ['claude-code-check.cjs', 'codex-check.cjs', 'cursor-check.cjs', 'gemini-check.cjs']) {
      expect(statSync(join(dir, '.intutic/hooks', f)).mode & 0o111).not.toBe(0);
    }
    const claude = readJson(join(dir, '.claude/settings.json'));
    for (const event of ['PreToolUse', 'PostToolUse', 'PostToolUseFailure']) {
      expect(claude.hooks[event]).toEqual([
        { matcher: '*', hooks: [{ type: 'command', command: `node ${dir}/.intutic/hooks/claude-code-check.cjs`, timeout: 30 }] },
      ]);
    }
    const codex = readJson(join(dir, '.codex/hooks.json'));
    expect(Object.keys(codex)).toEqual(['hooks']);
    expect(Object.keys(codex.hooks)).toEqual(['PreToolUse', 'PostToolUse']);
    expect(codex.hooks.PreToolUse[0].hooks[0].command).toBe(`node ${dir}/.intutic/hooks/codex-check.cjs`);
    const cursor = readJson(join(dir, '.cursor/hooks.json'));
    expect(cursor.version).toBe(1);
    expect(cursor.hooks.beforeShellExecution).toEqual([{ command: `node ${dir}/.intutic/hooks/cursor-check.cjs` }]);
    expect(Object.keys(cursor.hooks)).toEqual(['beforeShellExecution', 'beforeMCPExecution', 'beforeReadFile', 'afterShellExecution', 'afterMCPExecution']);
    // Gemini CLI: a regex matcher ('*' is its match-all), a timeout in milliseconds.
    const gemini = readJson(join(dir, '.gemini/settings.json'));
    expect(Object.keys(gemini.hooks)).toEqual(['BeforeTool', 'AfterTool']);
    expect(gemini.hooks.BeforeTool).toEqual([
      { matcher: '*', hooks: [{ type: 'command', command: `node ${dir}/.intutic/hooks/gemini-check.cjs`, timeout: 30_000 }] },
    ]);
    expect(readFileSync(join(dir, '.intutic/.gitignore'), 'utf8')).toContain('*');
  });

  it('the registered command runs the gate: a destructive call is refused', () => {
    const { dir } = tempProject();
    connect(dir);
    const command = readJson(join(dir, '.claude/settings.json')).hooks.PreToolUse[0].hooks[0].command as string;
    const out = execFileSync('sh', ['-c', command], {
      input: JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'git push -f' }, tool_use_id: 't' }),
      env: { PATH: process.env.PATH, HOME: join(dir, 'no-home') },
    }).toString();
    expect(JSON.parse(out).hookSpecificOutput.permissionDecision).toBe('deny');
    expect(existsSync(join(dir, '.intutic/events/gates.jsonl'))).toBe(true);
  });

  it('merges with the user settings and hooks, keeping every one of them', () => {
    const { dir } = tempProject();
    mkdirSync(join(dir, '.claude'));
    mkdirSync(join(dir, '.codex'));
    mkdirSync(join(dir, '.cursor'));
    const userHook = { matcher: 'Bash', hooks: [{ type: 'command', command: './lint.sh' }] };
    writeFileSync(
      join(dir, '.claude/settings.json'),
      JSON.stringify({
        permissions: { allow: ['Bash(npm *)'] },
        env: { A: '1' },
        hooks: { PreToolUse: [userHook], Stop: [{ hooks: [{ type: 'command', command: 'say done' }] }] },
      }),
    );
    writeFileSync(
      join(dir, '.codex/hooks.json'),
      JSON.stringify({ description: 'team hooks', hooks: { PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'audit' }] }] } }),
    );
    writeFileSync(
      join(dir, '.cursor/hooks.json'),
      JSON.stringify({ version: 1, hooks: { afterFileEdit: [{ command: 'fmt' }], beforeShellExecution: [{ command: 'theirs' }] } }),
    );
    connect(dir);
    const claude = readJson(join(dir, '.claude/settings.json'));
    expect(claude.permissions).toEqual({ allow: ['Bash(npm *)'] });
    expect(claude.env).toEqual({ A: '1' });
    expect(claude.hooks.PreToolUse[0]).toEqual(userHook);
    expect(claude.hooks.PreToolUse).toHaveLength(2);
    expect(claude.hooks.Stop).toHaveLength(1);
    const codex = readJson(join(dir, '.codex/hooks.json'));
    expect(codex.description).toBe('team hooks');
    expect(codex.hooks.PostToolUse.map((g: any) => g.hooks[0].command)).toEqual(['audit', expect.stringContaining('codex-check.cjs')]);
    const cursor = readJson(join(dir, '.cursor/hooks.json'));
    expect(cursor.hooks.afterFileEdit).toEqual([{ command: 'fmt' }]);
    expect(cursor.hooks.beforeShellExecution.map((h: any) => h.command)).toEqual(['theirs', expect.stringContaining('cursor-check.cjs')]);
  });

  it('is idempotent, and a moved project gets its new paths in place', () => {
    const { dir } = tempProject();
    connect(dir);
    const first = snapshot(dir);
    expect(planConnect(dir, env).changes).toEqual([]);
    expect(snapshot(dir)).toEqual(first);
    // Simulate a project moved from elsewhere: the old absolute path is replaced, not duplicated.
    const settingsPath = join(dir, '.claude/settings.json');
    writeFileSync(settingsPath, readFileSync(settingsPath, 'utf8').replaceAll(dir, '/old/place'));
    connect(dir);
    expect(readFileSync(settingsPath, 'utf8')).toBe(first['/.claude/settings.json']);
  });

  it('quotes a project path with spaces', () => {
    const base = tempProject().dir;
    const dir = join(base, 'my project');
    mkdirSync(dir);
    connect(dir);
    expect(readJson(join(dir, '.claude/settings.json')).hooks.PreToolUse[0].hooks[0].command).toBe(`node "${dir}/.intutic/hooks/claude-code-check.cjs"`);
  });

  it('wraps stdio MCP servers in intutic-mcp-proxy, keeping the original after --, once', () => {
    const { dir } = tempProject();
    const original = {
      mcpServers: {
        fs: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'], env: { X: '1' } },
        remote: { type: 'http', url: 'http://127.0.0.1:9/mcp' },
        bare: { command: 'my-server' },
      },
    };
    writeFileSync(join(dir, '.mcp.json'), JSON.stringify(original));
    const plan = connect(dir);
    expect(plan.mcp).toEqual([{ file: '.mcp.json', wrapped: ['fs', 'bare'], alreadyWrapped: [], skipped: ['remote'] }]);
    const mcp = readJson(join(dir, '.mcp.json'));
    expect(mcp.mcpServers.fs).toEqual({
      command: 'intutic-mcp-proxy',
      args: ['--name', 'fs', '--', 'npx', '-y', '@modelcontextprotocol/server-filesystem', '.'],
      env: { X: '1' },
    });
    expect(mcp.mcpServers.bare).toEqual({ command: 'intutic-mcp-proxy', args: ['--name', 'bare', '--', 'my-server'] });
    expect(mcp.mcpServers.remote).toEqual(original.mcpServers.remote);
    expect(planConnect(dir, env).changes).toEqual([]);
    // Recoverable: what follows `--` is the original command line.
    const args = mcp.mcpServers.fs.args as string[];
    expect(args.slice(args.indexOf('--') + 1)).toEqual(['npx', ...original.mcpServers.fs.args]);
  });

  it("Gemini CLI's settings: the user's kept, hooks turned back on, its MCP servers wrapped", () => {
    const { dir } = tempProject();
    mkdirSync(join(dir, '.gemini'));
    const user = {
      model: { name: 'gemini-2.5-pro' },
      hooksConfig: { enabled: false, notifications: false },
      hooks: { BeforeTool: [{ matcher: 'write_file', hooks: [{ type: 'command', command: './lint.sh' }] }] },
      mcpServers: { fs: { command: 'npx', args: ['-y', 'fs-mcp', '.'], trust: true }, web: { httpUrl: 'http://127.0.0.1:9/mcp' } },
    };
    writeFileSync(join(dir, '.gemini/settings.json'), JSON.stringify(user));
    const plan = connect(dir);
    const gemini = readJson(join(dir, '.gemini/settings.json'));
    expect(gemini.model).toEqual(user.model);
    expect(gemini.hooksConfig).toEqual({ enabled: true, notifications: false });
    expect(gemini.hooks.BeforeTool).toEqual([
      user.hooks.BeforeTool[0],
      { matcher: '*', hooks: [{ type: 'command', command: `node ${dir}/.intutic/hooks/gemini-check.cjs`, timeout: 30_000 }] },
    ]);
    expect(gemini.mcpServers.fs).toEqual({ command: 'intutic-mcp-proxy', args: ['--name', 'fs', '--', 'npx', '-y', 'fs-mcp', '.'], trust: true });
    expect(gemini.mcpServers.web).toEqual(user.mcpServers.web);
    expect(plan.mcp).toEqual([{ file: '.gemini/settings.json', wrapped: ['fs'], alreadyWrapped: [], skipped: ['web'] }]);
    expect(planConnect(dir, env).changes).toEqual([]);
  });

  it('--dry-run: a unified diff, and nothing written', () => {
    const { dir } = tempProject();
    mkdirSync(join(dir, '.claude'));
    writeFileSync(join(dir, '.claude/settings.json'), JSON.stringify({ model: 'x' }, null, 2) + '\n');
    const before = snapshot(dir);
    const diff = renderConnectDiff(planConnect(dir, env));
    expect(snapshot(dir)).toEqual(before);
    expect(diff).toContain('--- a/.claude/settings.json\n+++ b/.claude/settings.json\n@@ -1,3 +1,');
    expect(diff).toContain('-  "model": "x"\n+  "model": "x",\n+  "hooks": {');
    expect(diff).toContain('--- /dev/null\n+++ b/.codex/hooks.json\n@@ -0,0 +1,');
    expect(diff).toMatch(/\+\+\+ b\/\.intutic\/hooks\/claude-code-check\.cjs\n@@ generated gate script \(\d+ bytes\) @@/);
  });

  it.each([
    ['a syntax error', '{\n  "hooks": {\n    "PreToolUse": [,]\n  }\n}', /settings\.json:3:\d+: not valid JSON/],
    ['hooks that are not an object', '{"hooks": []}', /settings\.json: hooks must be an object/],
    ['an event that is not an array', '{"hooks": {"PreToolUse": {}}}', /hooks\.PreToolUse must be an array/],
    ['a JSON array', '[]', /must hold a JSON object/],
  ])('a malformed settings file (%s) is an error that names it and changes nothing', (_, text, message) => {
    const { dir } = tempProject();
    mkdirSync(join(dir, '.claude'));
    writeFileSync(join(dir, '.claude/settings.json'), text);
    writeFileSync(join(dir, '.mcp.json'), '{"mcpServers":{"a":{"command":"x"}}}');
    const before = snapshot(dir);
    let error: unknown;
    try {
      connect(dir);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(IntuticError);
    expect((error as IntuticError).code).toBe('E_CONFIG_INVALID');
    expect((error as IntuticError).message).toMatch(message);
    expect((error as IntuticError).message).toContain(join(dir, '.claude/settings.json'));
    expect(snapshot(dir)).toEqual(before);
  });

  it('leaves no temporary files behind', () => {
    const { dir } = tempProject();
    connect(dir);
    expect(Object.keys(snapshot(dir)).filter((p) => p.includes('.tmp'))).toEqual([]);
  });
});
