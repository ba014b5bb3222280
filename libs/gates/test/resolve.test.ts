// The gate looks at the disk before it decides (resolve.ts): a link planted in one call makes the next
// call's write a write to its target, a script is judged by what it holds at that moment, a FIFO or
// an oversized script is the worst case without a hang, and a copy of an installed agent is known by
// its content under any name. Real files in a temp directory, the real engine.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkCall, openGate } from '../src/index.ts';
import { MAX_SCRIPT_BYTES, realPath } from '../src/resolve.ts';
import { tempProject } from './helpers.ts';

function setup() {
  const p = tempProject();
  const dir = realpathSync(p.dir);
  const home = realpathSync(p.home);
  writeFileSync(join(home, '.bashrc'), '# rc\n');
  const ws = join(dir, 'ws');
  mkdirSync(ws);
  const gate = openGate({ source: 'gate', harness: 'claude-code', env: { ...p.env, HOME: home }, projectDir: dir, logDir: null });
  const bash = (command: string) => checkCall(gate, { tool: 'Bash', input: { command }, cwd: ws });
  return { p, dir, home, ws, gate, bash };
}

describe('the gate resolves before it decides', () => {
  it('follows links in every component and folds the rest, bounded on a loop', () => {
    const { home, ws } = setup();
    symlinkSync(home, join(ws, 'h'));
    symlinkSync('h/.bashrc', join(ws, 'rc'));
    expect(realPath(join(ws, 'rc'))).toBe(join(home, '.bashrc'));
    expect(realPath(join(ws, 'h/new/../.profile'))).toBe(join(home, '.profile'));
    symlinkSync('loop', join(ws, 'loop'));
    expect(typeof realPath(join(ws, 'loop'))).toBe('string');
  });

  it('blocks a write through a link an earlier call planted, by a command or by a file tool', () => {
    const { home, ws, gate, bash } = setup();
    expect(bash('ln -sf ~/.bashrc rc')).toMatchObject({ outcome: 'refuse', decision: { rule: 'destructive.protected_file' } });
    symlinkSync(join(home, '.bashrc'), join(ws, 'rc')); // as if made some other way the tier did not see
    expect(bash('echo x > rc')).toMatchObject({ outcome: 'refuse', decision: { rule: 'destructive.protected_file' } });
    expect(bash('cd .. && echo x > ws/rc').outcome).toBe('refuse');
    expect(checkCall(gate, { tool: 'Write', input: { file_path: join(ws, 'rc'), content: 'x' }, cwd: ws }).outcome).toBe('refuse');
    expect(bash('echo x > notes.txt').outcome).toBe('allow');
  });

  it('judges a script a shell runs by what it holds now, nested scripts too', () => {
    const { ws, bash } = setup();
    writeFileSync(join(ws, 'build.sh'), 'set -e\nnpm run build\nrm -rf dist\n');
    expect(bash('bash build.sh').outcome).toBe('allow');
    writeFileSync(join(ws, 'build.sh'), 'echo tidy\nrm -rf ~\n');
    expect(bash('bash build.sh')).toMatchObject({ outcome: 'refuse', decision: { rule: 'destructive.rm_recursive' } });
    writeFileSync(join(ws, 'outer'), '#!/bin/sh\nsh -x build.sh\n');
    chmodSync(join(ws, 'outer'), 0o755);
    expect(bash('./outer').outcome).toBe('refuse');
    expect(bash('source build.sh').outcome).toBe('refuse');
  });

  it('blocks a script it cannot read within bounds, and never waits on a FIFO', () => {
    const { ws, bash } = setup();
    writeFileSync(join(ws, 'big.sh'), 'echo x\n'.repeat(Math.ceil(MAX_SCRIPT_BYTES / 7) + 1));
    expect(bash('bash big.sh')).toMatchObject({ outcome: 'refuse', decision: { rule: 'destructive.unresolved_script' } });
    execFileSync('mkfifo', [join(ws, 'f.sh')]);
    expect(bash('bash f.sh')).toMatchObject({ outcome: 'refuse', decision: { rule: 'destructive.unresolved_script' } });
  });

  it('knows a copy of an installed agent by its content, under any name', () => {
    const p = tempProject();
    const dir = realpathSync(p.dir);
    const pkg = join(dir, 'lib/node_modules/@anthropic-ai/claude-code');
    mkdirSync(pkg, { recursive: true });
    mkdirSync(join(dir, 'bin'));
    const entry = join(pkg, 'cli.js');
    writeFileSync(entry, Buffer.concat([Buffer.from('#!/usr/bin/env node\n'), randomBytes(1536 * 1024)]));
    chmodSync(entry, 0o755);
    symlinkSync(entry, join(dir, 'bin/claude'));
    copyFileSync(entry, join(p.home, 'helper'));
    writeFileSync(join(p.home, 'other'), Buffer.concat([Buffer.from('#!/usr/bin/env node\n'), randomBytes(1536 * 1024)]));
    const gate = openGate({
      source: 'gate',
      harness: 'claude-code',
      env: { ...p.env, PATH: `${join(dir, 'bin')}:/usr/bin:/bin` },
      projectDir: dir,
      logDir: null,
    });
    const bash = (command: string) => checkCall(gate, { tool: 'Bash', input: { command }, cwd: dir });
    expect(bash('~/helper -p "tidy up"')).toMatchObject({ outcome: 'refuse', decision: { rule: 'destructive.ungoverned_agent' } });
    expect(bash('node ~/helper -p hi').outcome).toBe('refuse');
    expect(bash('~/helper --version').outcome).toBe('allow');
    expect(bash('node ~/other').outcome).toBe('allow');
  });
});
