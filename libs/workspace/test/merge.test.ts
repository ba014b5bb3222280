// A project that commits its own hook settings: the repetition gets the commit's copy with the gate
// hooks `intutic connect` added in the working copy merged in, and nothing else of the working copy.
import { describe, expect, it } from 'vitest';
import { IntuticError } from '@intutic/errors';
import { assertGoverned, mergeRegistrations, onlyMcpWrapping } from '../src/index.ts';

const GATE = 'node /home/dev/shop/.intutic/hooks/claude-code-check.cjs';

/** The project's committed settings: permissions and a hook of its own, 4-space indented. */
const COMMITTED = `${JSON.stringify(
  {
    permissions: { allow: ['Bash(npm test)'], deny: ['Read(.env)'] },
    hooks: { PostToolUse: [{ matcher: 'Edit', hooks: [{ type: 'command', command: 'npx prettier --write "$FILE"' }] }] },
  },
  null,
  4,
)}\n`;

/** What connect leaves in the working copy: the committed settings plus a gate group per event. */
function connected(committed: string, command = GATE, extra: (s: Record<string, unknown>) => void = () => {}): string {
  const settings = JSON.parse(committed) as { hooks: Record<string, unknown[]> };
  for (const event of ['PreToolUse', 'PostToolUse']) {
    settings.hooks[event] ??= [];
    settings.hooks[event].push({ matcher: '*', hooks: [{ type: 'command', command, timeout: 30 }] });
  }
  extra(settings);
  return JSON.stringify(settings, null, 2);
}

describe('merging the gate registrations into a committed settings file', () => {
  it("keeps the commit's keys, their order and indentation, and adds the gate hooks", () => {
    const merged = mergeRegistrations(COMMITTED, connected(COMMITTED))!;
    const value = JSON.parse(merged) as { permissions: unknown; hooks: Record<string, unknown[]> };
    expect(Object.keys(value)).toEqual(['permissions', 'hooks']);
    expect(value.permissions).toEqual({ allow: ['Bash(npm test)'], deny: ['Read(.env)'] });
    expect(value.hooks.PreToolUse).toEqual([{ matcher: '*', hooks: [{ type: 'command', command: GATE, timeout: 30 }] }]);
    // The project's own formatter hook stays first; the gate follows it.
    expect(value.hooks.PostToolUse).toHaveLength(2);
    expect(value.hooks.PostToolUse?.[0]).toEqual({ matcher: 'Edit', hooks: [{ type: 'command', command: 'npx prettier --write "$FILE"' }] });
    expect(merged).toMatch(/^\{\n {4}"permissions"/);
    expect(merged.endsWith('}\n')).toBe(true);
    expect(mergeRegistrations(COMMITTED, connected(COMMITTED))).toBe(merged);
  });

  it("does not carry the working copy's other edits: a loosened permission or a hook of its own", () => {
    const working = connected(COMMITTED, GATE, (s) => {
      (s.permissions as { allow: string[] }).allow.push('Bash(rm -rf *)');
      (s.hooks as Record<string, unknown[]>).Stop = [{ hooks: [{ type: 'command', command: 'say done' }] }];
    });
    const value = JSON.parse(mergeRegistrations(COMMITTED, working)!) as { permissions: { allow: string[] }; hooks: Record<string, unknown> };
    expect(value.permissions.allow).toEqual(['Bash(npm test)']);
    expect(value.hooks.Stop).toBeUndefined();
    expect(value.hooks.PreToolUse).toBeDefined();
  });

  it('replaces a stale gate entry the commit holds (another path to the same gate) instead of doubling it', () => {
    const stale = mergeRegistrations(COMMITTED, connected(COMMITTED, 'node /old/checkout/.intutic/hooks/claude-code-check.cjs'))!;
    const merged = JSON.parse(mergeRegistrations(stale, connected(COMMITTED))!) as { hooks: Record<string, unknown[]> };
    expect(merged.hooks.PreToolUse).toEqual([{ matcher: '*', hooks: [{ type: 'command', command: GATE, timeout: 30 }] }]);
    expect(JSON.stringify(merged)).not.toContain('/old/checkout');
  });

  it('keeps the gates the commit has when the working copy dropped them', () => {
    const withGates = connected(COMMITTED);
    const merged = JSON.parse(mergeRegistrations(withGates, COMMITTED)!) as { hooks: Record<string, unknown[]> };
    expect(JSON.stringify(merged.hooks.PreToolUse)).toContain('.intutic/hooks/claude-code-check.cjs');
  });

  it("switches Gemini CLI's hooks back on when the commit turned them off and connect turned them on", () => {
    const committed = JSON.stringify({ hooksConfig: { enabled: false }, model: { name: 'gemini-2.5-pro' } });
    const working = JSON.stringify({
      hooksConfig: { enabled: true },
      model: { name: 'gemini-2.5-pro' },
      hooks: { BeforeTool: [{ matcher: '*', hooks: [{ type: 'command', command: 'node /p/.intutic/hooks/gemini-check.cjs', timeout: 30000 }] }] },
    });
    const merged = JSON.parse(mergeRegistrations(committed, working)!) as { hooksConfig: { enabled: boolean }; hooks: unknown };
    expect(merged.hooksConfig.enabled).toBe(true);
    expect(JSON.stringify(merged.hooks)).toContain('gemini-check.cjs');
  });

  it("merges Cursor's flat hook lists", () => {
    const committed = JSON.stringify({ version: 1, hooks: { afterFileEdit: [{ command: './format.sh' }] } });
    const working = JSON.stringify({
      version: 1,
      hooks: { afterFileEdit: [{ command: './format.sh' }], beforeShellExecution: [{ command: 'node /p/.intutic/hooks/cursor-check.cjs' }] },
    });
    expect(JSON.parse(mergeRegistrations(committed, working)!)).toEqual(JSON.parse(working));
  });

  it('wraps only the committed MCP servers connect wrapped, never a server the working copy added', () => {
    const committed = JSON.stringify({ mcpServers: { docs: { command: 'npx', args: ['-y', 'docs-mcp'] } } });
    const working = JSON.stringify({
      mcpServers: {
        docs: { command: 'intutic-mcp-proxy', args: ['--name', 'docs', '--', 'npx', '-y', 'docs-mcp'] },
        extra: { command: 'intutic-mcp-proxy', args: ['--name', 'extra', '--', 'node', 'x.js'] },
      },
    });
    const merged = JSON.parse(mergeRegistrations(committed, working)!) as { mcpServers: Record<string, unknown> };
    expect(merged.mcpServers).toEqual({ docs: { command: 'intutic-mcp-proxy', args: ['--name', 'docs', '--', 'npx', '-y', 'docs-mcp'] } });
    expect(onlyMcpWrapping(committed, JSON.stringify({ mcpServers: { docs: merged.mcpServers.docs } }))).toBe(true);
    expect(onlyMcpWrapping(committed, working)).toBe(false);
  });

  it("keeps the commit's copy as it is when either side is not a JSON object", () => {
    expect(mergeRegistrations('not json', connected(COMMITTED))).toBeNull();
    expect(mergeRegistrations(COMMITTED, '[1]')).toBeNull();
  });
});

describe('refusing a repetition whose harness would run without the gates', () => {
  const governed = connected(COMMITTED);

  it('accepts settings that register the gate', () => {
    expect(() => assertGoverned(new Map([['.claude/settings.json', governed]]))).not.toThrow();
  });

  it.each([
    ['.claude/settings.json', 'registers no intutic gate', COMMITTED],
    ['.codex/hooks.json', 'not valid JSON', '{"hooks":'],
    ['.claude/settings.local.json', 'disableAllHooks is true', '{"disableAllHooks": true}'],
    [
      '.gemini/settings.json',
      'hooksConfig.enabled is false',
      JSON.stringify({ hooksConfig: { enabled: false }, hooks: (JSON.parse(governed) as { hooks: unknown }).hooks }),
    ],
  ])('names %s: %s', (file, reason, text) => {
    const settings = new Map([['.claude/settings.json', governed]]);
    settings.set(file, text);
    let error: unknown;
    try {
      assertGoverned(settings);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(IntuticError);
    expect((error as IntuticError).code).toBe('E_UNGOVERNED');
    expect((error as IntuticError).message).toContain(`${file}: ${reason}`);
  });
});
