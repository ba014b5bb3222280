// The BUILT CLI's `chaos init` in a project of its own: the starter it writes passes `chaos validate`
// as it is, a second init refuses (73) and leaves the file alone, an unknown fault id is a usage
// error (64) that suggests the nearest id and writes nothing; and `--help` shows the command.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '@intutic/errors';
import { FAULT_IDS } from '@intutic/faults';
import { REPO_ROOT, runBuiltCli, scratchDir } from '@intutic/testkit';

let project: string;

beforeAll(() => {
  execFileSync(process.execPath, [join(REPO_ROOT, 'scripts/build.mjs')], { cwd: REPO_ROOT, stdio: 'pipe', timeout: 120_000 });
  project = scratchDir('intutic-chaos-init-');
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'shop', scripts: { test: 'node --test' } }));
}, 180_000);

afterAll(() => {
  if (project) rmSync(project, { recursive: true, force: true });
});

const intutic = (args: string[]) => runBuiltCli(args, { cwd: project });

describe('the built intutic chaos init', () => {
  it('writes chaos/<fault-id>.yaml, which chaos validate accepts unchanged', async () => {
    const init = await intutic(['chaos', 'init']);
    expect(init.stderr).toBe('');
    expect(init.code).toBe(EXIT.ok);
    expect(init.stdout).toContain('wrote chaos/egress.dns_fail.yaml');
    const text = readFileSync(join(project, 'chaos', 'egress.dns_fail.yaml'), 'utf8');
    expect(text).toContain('cost_usd_above: 2');
    expect(text).toContain('verify: npm test'); // the project's own test command
    for (const id of FAULT_IDS.filter((id) => id !== 'egress.dns_fail')) expect(text).toContain(`intutic chaos init ${id}`);

    const validate = await intutic(['chaos', 'validate', 'chaos/egress.dns_fail.yaml']);
    expect(validate.stdout).toBe('chaos/egress.dns_fail.yaml: valid\n');
    expect(validate.code).toBe(EXIT.ok);
  });

  it('refuses to write over an existing file, with its own exit code, and leaves the file as it was', async () => {
    const file = join(project, 'chaos', 'egress.dns_fail.yaml');
    writeFileSync(file, '# mine\n');
    const again = await intutic(['chaos', 'init']);
    expect(again.code).toBe(EXIT.outputExists);
    expect(again.stderr).toContain('error[E_FILE_EXISTS]');
    expect(again.stderr).toContain('never overwrites');
    expect(again.stderr).not.toMatch(/\n\s+at /);
    expect(readFileSync(file, 'utf8')).toBe('# mine\n');
    expect(readdirSync(join(project, 'chaos'))).toEqual(['egress.dns_fail.yaml']); // no temp file left behind
  });

  it('writes where --out says, for the fault named, and that file validates too', async () => {
    const init = await intutic(['chaos', 'init', 'permission.deny_or_delay', '--out', 'experiments/deny.yaml']);
    expect(init.code).toBe(EXIT.ok);
    expect(readFileSync(join(project, 'experiments', 'deny.yaml'), 'utf8')).toContain('- id: permission.deny_or_delay');
    const validate = await intutic(['chaos', 'validate', 'experiments/deny.yaml']);
    expect(validate.stdout).toBe('experiments/deny.yaml: valid\n');
  });

  it('names the known fault ids and the nearest one for an unknown id, and writes nothing', async () => {
    const run = await intutic(['chaos', 'init', 'egress.dns_fial']);
    expect(run.code).toBe(EXIT.usage);
    expect(run.stderr).toContain('unknown fault id "egress.dns_fial" (did you mean "egress.dns_fail"?)');
    for (const id of FAULT_IDS) expect(run.stderr).toContain(id);
    expect(existsSync(join(project, 'chaos', 'egress.dns_fial.yaml'))).toBe(false);
  });

  it('is in the help of intutic and of intutic chaos', async () => {
    expect((await intutic(['--help'])).stdout).toMatch(/chaos \[options\]\s+chaos experiments: start one \(init\)/);
    const help = await intutic(['chaos', '--help']);
    expect(help.stdout).toMatch(/\n\s+init \[options\] \[fault-id\]\s+write a commented starter experiment/);
  });
});
