import { execFileSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runBuiltCli } from '@intutic/testkit';

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
});
