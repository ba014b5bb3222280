// An experiment's MCP servers under each profile (issue 37): the command a profile renders is run by
// a real shell, with stand-ins for the agents that record what they were started with and what the
// command wrote for them, so the test sees what Claude Code, Codex and Gemini CLI would read.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentCommandFor, builtInProfile, validateSuiteFile, type McpServers } from '../src/index.ts';
import { check, experimentText, fakeDeps } from './helpers.ts';

const SERVERS: McpServers = {
  fs: { command: 'mcp-server-filesystem', args: ['/work'] },
  // Words a shell or a heredoc would otherwise expand or split: they must arrive as written.
  odd: { command: 'odd-server', args: ['$HOME', 'it\'s "quoted"', 'back\\slash `tick`'] },
};
const WRAPPED = {
  fs: { command: 'intutic-mcp-proxy', args: ['--name', 'fs', '--', 'mcp-server-filesystem', '/work'] },
  odd: { command: 'intutic-mcp-proxy', args: ['--name', 'odd', '--', 'odd-server', '$HOME', 'it\'s "quoted"', 'back\\slash `tick`'] },
};

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'intutic-mcp-servers-'));
  mkdirSync(join(dir, 'bin'));
  mkdirSync(join(dir, 'home'));
  // Each stand-in writes its arguments, one per line, NUL-free: what the agent was started with.
  for (const agent of ['claude', 'codex', 'gemini']) {
    writeFileSync(join(dir, 'bin', agent), `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a"; done > "$HOME/argv"\n`);
    chmodSync(join(dir, 'bin', agent), 0o755);
  }
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Run the profile's command as the sandbox does (sh -c), and return the stand-in's arguments. */
function start(profileId: string, servers: McpServers): string[] {
  const command = agentCommandFor(builtInProfile(profileId)!, 'Summarize README.md.', servers);
  execFileSync('sh', ['-c', command], {
    env: { PATH: `${join(dir, 'bin')}:/usr/bin:/bin`, HOME: join(dir, 'home'), OPENAI_BASE_URL: 'http://proxy:1/v1', INTUTIC_SANDBOX: '1' },
  });
  return readFileSync(join(dir, 'home', 'argv'), 'utf8')
    .replace(/\n$/, '')
    .split('\n');
}

const after = (argv: string[], flag: string): string => argv[argv.indexOf(flag) + 1] ?? '';

describe("an experiment's MCP servers reach each shipped agent, each behind intutic-mcp-proxy", () => {
  it('Claude Code: in --mcp-config, with every tool of each server allowed', () => {
    const argv = start('claude-code', SERVERS);
    expect(JSON.parse(after(argv, '--mcp-config'))).toEqual({ mcpServers: WRAPPED });
    expect(after(argv, '--allowedTools').split(',')).toEqual(['Bash', 'Read', 'Edit', 'Write', 'mcp__fs', 'mcp__odd']);
    expect(after(argv, '-p')).toBe('Summarize README.md.');
  });

  it("Gemini CLI: in the user's settings, trusted", () => {
    const argv = start('gemini-cli', SERVERS);
    const settings = JSON.parse(readFileSync(join(dir, 'home', '.gemini', 'settings.json'), 'utf8')) as unknown;
    expect(settings).toEqual({ mcpServers: { fs: { ...WRAPPED.fs, trust: true }, odd: { ...WRAPPED.odd, trust: true } } });
    expect(after(argv, '-p')).toBe('Summarize README.md.');
  });

  it("Codex: as [mcp_servers] tables of its config.toml, with the proxy's variables passed on", () => {
    start('codex', SERVERS);
    const toml = readFileSync(join(dir, 'home', '.codex', 'config.toml'), 'utf8');
    expect(toml).toContain(
      '[mcp_servers.fs]\ncommand = "intutic-mcp-proxy"\nargs = ["--name", "fs", "--", "mcp-server-filesystem", "/work"]\nrequired = true\n',
    );
    // TOML basic strings: the words arrive as written, the shell expanded none of them.
    expect(toml).toContain('args = ["--name", "odd", "--", "odd-server", "$HOME", "it\'s \\"quoted\\"", "back\\\\slash `tick`"]');
    // Codex starts a server with a reduced environment: the variables the MCP proxy needs are handed on, expanded.
    expect(toml).toContain('env = { INTUTIC_SANDBOX = "1", INTUTIC_CHAOS_PLAN = ""');
    expect(toml).toContain('base_url = "http://proxy:1/v1"');
  });

  it('no servers: no MCP configuration at all', () => {
    const argv = start('claude-code', {});
    expect(argv).not.toContain('--mcp-config');
    expect(after(argv, '--allowedTools')).toBe('Bash,Read,Edit,Write');
    start('gemini-cli', {});
    expect(() => readFileSync(join(dir, 'home', '.gemini', 'settings.json'))).toThrow();
  });
});

const withServers = (text: string) =>
  text.replace(/^agent:.*$/m, 'task: Summarize README.md.\nmcp_servers:\n  fs: { command: mcp-server-filesystem, args: [/work] }');

describe('mcp_servers in an experiment file', () => {
  it('validates with task:, and chaos run starts the default profile with them', () => {
    const result = check(withServers(experimentText()));
    expect(result.errors).toEqual([]);
    expect(result.experiment?.mcp_servers).toEqual({ fs: { command: 'mcp-server-filesystem', args: ['/work'] } });
    expect(result.experiment?.agent).toContain('--mcp-config');
  });

  it('is refused beside an agent: command alone, which starts its own servers', () => {
    const result = check(experimentText().replace(/^agent:.*$/m, '$&\nmcp_servers:\n  fs: { command: mcp-server-filesystem }'));
    expect(result.errors.map((e) => e.code)).toContain('mcp-servers-without-task');
  });

  it('refuses a server given as one string with its arguments, and a name that is not one', () => {
    const base = withServers(experimentText());
    const oneString = check(base.replace('{ command: mcp-server-filesystem, args: [/work] }', '{ command: "mcp-server-filesystem /work" }'));
    expect(oneString.errors.map((e) => e.message)).toContainEqual(expect.stringContaining('is one program (its arguments go in args)'));
    const badName = check(base.replace('  fs: {', '  "F S": {'));
    expect(badName.errors.map((e) => e.message)).toContainEqual(expect.stringContaining('a server name is lowercase letters'));
  });

  it('in a suite, a command profile that cannot hand them over is an error at that profile', async () => {
    writeFileSync(join(dir, 'a.yaml'), withServers(experimentText()).replace('name: base-case', 'name: reads-readme'));
    writeFileSync(
      join(dir, 'suite.yaml'),
      'name: s\nexperiments: [a.yaml]\nprofiles:\n  - claude-code\n  - { id: other, agent: command, args: "other {task}", image: me/other:1 }\ncost_ceiling_usd: 5\n',
    );
    const result = await validateSuiteFile(join(dir, 'suite.yaml'), fakeDeps());
    expect(result.suite).toBeUndefined();
    expect(result.errors.map((e) => `${e.line}:${e.code}`)).toEqual(['5:profile-mismatch']);
    expect(result.errors[0]!.message).toContain('(fs)');
  });
});
