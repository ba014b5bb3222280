// `intutic policy test|init` and `intutic connect` through the CLI's own entry (in-process).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GATE_SCRIPTS } from '@intutic/gates';
import { scratchDir } from '@intutic/testkit';
import { runCliInProcess } from './run-fixtures.ts';

const cli = runCliInProcess;

const temp = () => scratchDir('intutic-cli-');

describe('intutic policy test', () => {
  it('prints the decision and the rule, with an exit code per decision', async () => {
    const home = temp();
    const blocked = await cli(['policy', 'test', 'bash -c "git reset --hard"'], { HOME: home }, home);
    expect(blocked.code).toBe(10);
    expect(blocked.stdout).toMatch(/decision: +block\nrule: +destructive\.git_reset_hard \(enforce\)\ndestructive: yes/);
    const allowed = await cli(['policy', 'test', 'git reset --soft HEAD~1'], { HOME: home }, home);
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toMatch(/decision: +allow\nrule: +\(none\)/);
  });

  it('uses the snapshot: hold and redact exit codes, --tool, --input and --json', async () => {
    const home = temp();
    const rules = join(home, 'rules.json');
    writeFileSync(
      rules,
      JSON.stringify({
        rules: [
          { id: 'deploys', subject: 'command', pattern: 'make deploy*', action: 'hold' },
          { id: 'k', subject: 'content', pattern: '/sk-[a-z]+/', action: 'redact' },
        ],
      }),
    );
    const env = { HOME: home, INTUTIC_SNAPSHOT_RULES: rules };
    expect((await cli(['policy', 'test', 'make deploy'], env, home)).code).toBe(11);
    const redact = await cli(['policy', 'test', 'x', '--tool', 'Write', '--input', '{"content":"key sk-abc"}', '--json'], env, home);
    expect(redact.code).toBe(12);
    expect(JSON.parse(redact.stdout)).toMatchObject({ decision: 'redact', rule: 'k', redactedInput: { content: 'key [REDACTED:k]' }, snapshot: rules });
  });

  it('a malformed snapshot is E_POLICY_INVALID with file:line, not a stack trace', async () => {
    const home = temp();
    const rules = join(home, 'rules.json');
    writeFileSync(rules, '{\n"rules": [\n{"id": "a", "subject": "nope", "pattern": "x", "action": "block"}]}');
    const run = await cli(['policy', 'test', 'ls'], { HOME: home, INTUTIC_SNAPSHOT_RULES: rules }, home);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(`error[E_POLICY_INVALID]: ${rules}:3: rules[0].subject must be one of`);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('intutic policy init', () => {
  it('writes a starter snapshot and bypass list, and never overwrites the snapshot without --force', async () => {
    const home = temp();
    const init = await cli(['policy', 'init'], { HOME: home }, home);
    expect(init.code).toBe(0);
    const snapshot = join(home, '.intutic/hooks/snapshot-rules.json');
    expect(JSON.parse(readFileSync(snapshot, 'utf8')).rules.length).toBeGreaterThan(0);
    expect(JSON.parse(readFileSync(join(home, '.intutic/hooks/approved-bypasses.json'), 'utf8'))).toEqual({ version: 1, bypasses: [] });
    writeFileSync(snapshot, '{"rules": []}');
    const again = await cli(['policy', 'init'], { HOME: home }, home);
    expect(again.code).toBe(64);
    expect(again.stderr).toContain('already exists');
    expect(readFileSync(snapshot, 'utf8')).toBe('{"rules": []}');
    expect((await cli(['policy', 'init', '--force'], { HOME: home }, home)).code).toBe(0);
    expect(readFileSync(snapshot, 'utf8')).not.toBe('{"rules": []}');
  });
});

describe('intutic connect', () => {
  function gatesDir(): string {
    const dir = temp();
    for (const f of GATE_SCRIPTS.map((s) => s.file)) writeFileSync(join(dir, f), `// ${f}\n`);
    return dir;
  }

  it('--dry-run prints the diff and writes nothing; a real run writes and reports', async () => {
    const project = temp();
    const env = { HOME: project, INTUTIC_GATES_DIR: gatesDir() };
    const dry = await cli(['connect', '--dry-run'], env, project);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('+++ b/.claude/settings.json');
    expect(existsSync(join(project, '.claude'))).toBe(false);
    const real = await cli(['connect'], env, project);
    expect(real.code).toBe(0);
    expect(real.stdout).toContain('created .claude/settings.json');
    expect((await cli(['connect'], env, project)).stdout).toContain('already connected');
  });

  it('refuses a malformed settings file with E_CONFIG_INVALID', async () => {
    const project = temp();
    mkdirSync(join(project, '.cursor'));
    writeFileSync(join(project, '.cursor/hooks.json'), '{"version": 1, "hooks": ');
    const run = await cli(['connect', '--dir', project], { HOME: project, INTUTIC_GATES_DIR: gatesDir() }, '/');
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(`error[E_CONFIG_INVALID]: ${join(project, '.cursor/hooks.json')}:1:`);
    expect(existsSync(join(project, '.intutic'))).toBe(false);
  });
});
