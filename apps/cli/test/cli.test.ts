import { execFileSync, spawnSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN, REPO_ROOT, runBuiltCli } from '@intutic/testkit';

beforeAll(() => {
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: REPO_ROOT, stdio: 'inherit' });
});

describe('the intutic bin', () => {
  it('prints its version', async () => {
    const run = await runBuiltCli(['--version']);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('answers --help and --version on every subcommand', async () => {
    for (const args of [['chaos'], ['chaos', 'validate']].filter(Boolean)) {
      const help = await runBuiltCli([...args, '--help']);
      expect(help.code, args.join(' ')).toBe(0);
      expect(help.stdout).toContain('Usage: intutic');
      const version = await runBuiltCli([...args, '--version']);
      expect(version.code).toBe(0);
    }
  });

  it('rejects an unknown command with the usage exit code and no stack trace', async () => {
    const run = await runBuiltCli(['no-such-command']);
    expect(run.code).toBe(64);
    expect(run.stderr).toContain("unknown command 'no-such-command'");
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  // `intutic … | head -1`: the reader goes away before everything is written. `true` reads nothing and
  // exits at once, so every write meets a closed pipe (head -1 does the same, only later).
  it('ends quietly, with its own exit code, when its output pipe is closed', () => {
    for (const args of ['chaos compare --help', 'chaos list', 'chaos schema', 'chaos validate /no/such.yaml']) {
      const run = spawnSync('bash', ['-c', `"$NODE" "$BIN" ${args} | true; echo "exit=\${PIPESTATUS[0]}" >&2`], {
        cwd: REPO_ROOT,
        env: { ...process.env, NODE: process.execPath, BIN: CLI_BIN },
        encoding: 'utf8',
      });
      const expected = args.startsWith('chaos validate') ? 'exit=3' : 'exit=0';
      expect(run.stderr.includes('EPIPE') || /\n\s+at /.test(run.stderr), `${args}: ${run.stderr}`).toBe(false);
      expect(run.stderr, args).toContain(expected);
    }
  });
});
