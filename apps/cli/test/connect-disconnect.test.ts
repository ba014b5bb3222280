// `intutic connect` then `intutic disconnect` on a project shaped like a user's: its own committed
// hook settings (permissions, a hook of its own), an untracked local settings file, an MCP config,
// an executable script and a history. Disconnect must leave every file, mode and directory as it was,
// and git's own view (status, .git/info/exclude) too.
import { execFileSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GATE_SCRIPTS } from '@intutic/gates';
import { scratchDir } from '@intutic/testkit';
import { runCliInProcess } from './run-fixtures.ts';

const cli = runCliInProcess;

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
  });

/** Every entry of the work tree and .git/info: kind, mode and bytes; .git's object store aside. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const path = join(d, name);
      const rel = relative(dir, path);
      if (rel === '.git') {
        walk(join(path, 'info'));
        continue;
      }
      const st = lstatSync(path);
      if (st.isDirectory()) {
        out[rel + '/'] = (st.mode & 0o7777).toString(8);
        walk(path);
      } else out[rel] = `${(st.mode & 0o7777).toString(8)} ${readFileSync(path).toString('base64')}`;
    }
  };
  walk(dir);
  return out;
}

const CLAUDE_SETTINGS = {
  permissions: { allow: ['Bash(npm test)', 'Read'], deny: ['Bash(curl *)'] },
  hooks: { PostToolUse: [{ matcher: 'Edit', hooks: [{ type: 'command', command: 'npx prettier --write "$CLAUDE_FILE_PATHS"' }] }] },
};

/** A user's project: committed settings with their own formatting, history, tests; one untracked local file. */
function userProject(): { project: string; env: NodeJS.ProcessEnv } {
  const home = scratchDir('intutic-home-');
  const project = scratchDir('intutic-proj-');
  const gates = scratchDir('intutic-gates-');
  for (const f of GATE_SCRIPTS.map((s) => s.file)) writeFileSync(join(gates, f), `// ${f}\n`);
  git(project, 'init', '-q', '-b', 'main');
  mkdirSync(join(project, '.claude'));
  // Their own formatting (tabs, no final newline): connect rewrites it, disconnect must bring it back exactly.
  writeFileSync(join(project, '.claude/settings.json'), JSON.stringify(CLAUDE_SETTINGS, null, '\t'));
  mkdirSync(join(project, 'scripts'));
  writeFileSync(join(project, 'scripts/check.sh'), '#!/bin/sh\nnpm test\n');
  chmodSync(join(project, 'scripts/check.sh'), 0o755);
  writeFileSync(join(project, 'package.json'), '{"name":"app","scripts":{"test":"node --test"}}\n');
  writeFileSync(join(project, '.mcp.json'), JSON.stringify({ mcpServers: { fs: { command: 'npx', args: ['-y', 'mcp-fs', '.'] } } }, null, 2) + '\n');
  git(project, 'add', '-A');
  git(project, 'commit', '-qm', 'first');
  writeFileSync(join(project, 'index.test.js'), "require('node:test')('ok', () => {});\n");
  git(project, 'add', '-A');
  git(project, 'commit', '-qm', 'a test');
  // Untracked and not ignored: the user's own, connect must merge into it and give it back.
  writeFileSync(join(project, '.claude/settings.local.json'), '{"permissions":{"allow":["Bash(ls)"]}}\n');
  return { project, env: { HOME: home, INTUTIC_GATES_DIR: gates } };
}

describe('intutic connect and disconnect', () => {
  it('keeps the project settings, hides what it created from git status when asked, and undoes all of it byte for byte', async () => {
    const { project, env } = userProject();
    const before = snapshot(project);
    const statusBefore = git(project, 'status', '--porcelain');
    expect((await cli(['policy', 'init'], env, project)).code).toBe(0);

    const connect = await cli(['connect', '--git-exclude'], env, project);
    expect(connect.code, connect.stderr).toBe(0);
    // The project's own keys survive the merge, beside the gate.
    const merged = JSON.parse(readFileSync(join(project, '.claude/settings.json'), 'utf8')) as Record<string, any>;
    expect(merged.permissions).toEqual(CLAUDE_SETTINGS.permissions);
    expect(merged.hooks.PostToolUse[0]).toEqual(CLAUDE_SETTINGS.hooks.PostToolUse[0]);
    expect(JSON.stringify(merged.hooks.PreToolUse)).toContain('.intutic/hooks/claude-code-check');
    // git status: the committed files connect edited show as modified; nothing it created is listed.
    const status = git(project, 'status', '--porcelain', '--untracked-files=all').split('\n').filter(Boolean).sort();
    expect(status).toEqual([' M .claude/settings.json', ' M .mcp.json', '?? .claude/settings.local.json'].sort());
    expect(connect.stdout).toContain('kept out of git status');

    const disconnect = await cli(['disconnect'], env, project);
    expect(disconnect.code, disconnect.stderr).toBe(0);
    expect(snapshot(project)).toEqual(before);
    expect(git(project, 'status', '--porcelain')).toBe(statusBefore);
  });

  it('without --git-exclude says what git status will list, and how to hide it', async () => {
    const { project, env } = userProject();
    const connect = await cli(['connect'], env, project);
    expect(connect.stdout).toMatch(/git status now lists .*\.codex\/hooks\.json/);
    expect(connect.stdout).toContain('intutic connect --git-exclude');
    expect(readFileSync(join(project, '.git/info/exclude'), 'utf8')).not.toContain('intutic');
  });

  it('refuses to revert a file edited since connect (nothing changed) unless --force', async () => {
    const { project, env } = userProject();
    const before = snapshot(project);
    expect((await cli(['connect', '--git-exclude'], env, project)).code).toBe(0);
    // A second connect keeps the first one's originals.
    expect((await cli(['connect'], env, project)).code).toBe(0);
    const codex = join(project, '.codex/hooks.json');
    writeFileSync(codex, readFileSync(codex, 'utf8').replace('"hooks"', '"description": "mine", "hooks"'));
    const during = snapshot(project);
    const refused = await cli(['disconnect'], env, project);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('error[E_CHANGED_SINCE_CONNECT]');
    expect(refused.stderr).toContain('.codex/hooks.json');
    expect(snapshot(project)).toEqual(during);
    expect((await cli(['disconnect', '--force'], env, project)).code).toBe(0);
    expect(snapshot(project)).toEqual(before);
  });

  it('in a project connect never ran in: E_NOT_CONNECTED, nothing touched', async () => {
    const { project, env } = userProject();
    const before = snapshot(project);
    const run = await cli(['disconnect'], env, project);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('error[E_NOT_CONNECTED]');
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(snapshot(project)).toEqual(before);
  });
});
