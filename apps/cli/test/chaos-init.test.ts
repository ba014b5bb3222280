// `chaos init` in process: run(options, deps) with a recording writer, the project's test command
// found from its files, and the writer that never overwrites and never leaves a half-written file.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { IntuticError } from '@intutic/errors';
import { projectTestCommand, runInit, writeNewFileAtomically, type InitDeps } from '../src/commands/chaos-init.ts';
import { scratchDir } from '@intutic/testkit';

const scratch = scratchDir('intutic-init-unit-');
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function recordingDeps(testCommand?: string) {
  const written: { path: string; text: string }[] = [];
  const deps: InitDeps = { stdout: new PassThrough(), writeNewFile: async (path, text) => void written.push({ path, text }), testCommand: () => testCommand };
  return { deps, written };
}

describe('runInit', () => {
  it('writes the default fault to chaos/<fault-id>.yaml under the project, named after it', async () => {
    const { deps, written } = recordingDeps('cargo test');
    await runInit({ cwd: '/home/me/shop' }, deps);
    expect(written.map((w) => w.path)).toEqual(['/home/me/shop/chaos/egress.dns_fail.yaml']);
    expect(written[0]!.text).toContain('works on shop');
    expect(written[0]!.text).toContain('verify: cargo test');
    expect(written[0]!.text).toContain('#   intutic chaos validate chaos/egress.dns_fail.yaml');
  });

  it('falls back to a verify that fails until it is replaced when the test command is not known', async () => {
    const { deps, written } = recordingDeps();
    await runInit({ cwd: '/p', faultId: 'tool.error', out: '../elsewhere/x.yaml' }, deps);
    expect(written[0]!.path).toBe('/elsewhere/x.yaml');
    expect(written[0]!.text).toContain('verify: test -f TODO-a-file-the-task-creates');
  });

  it('throws a usage error for an unknown fault id, before writing anything', async () => {
    const { deps, written } = recordingDeps();
    const failure = runInit({ cwd: '/p', faultId: 'nope' }, deps);
    await expect(failure).rejects.toBeInstanceOf(IntuticError);
    await expect(failure).rejects.toMatchObject({ code: 'E_USAGE', hints: [expect.stringContaining('llm.rate_limit, '), expect.any(String)] });
    expect(written).toEqual([]);
  });
});

describe('projectTestCommand', () => {
  it.each([
    [{ 'package.json': '{"scripts":{"test":"vitest"}}' }, 'npm test'],
    [{ 'package.json': '{"scripts":{}}', 'go.mod': 'module x' }, 'go test ./...'],
    [{ 'package.json': 'not json' }, undefined],
    [{ 'pyproject.toml': '' }, 'python3 -m pytest'],
    [{ Makefile: 'test:' }, 'make test'],
    [{}, undefined],
  ])('finds the test command of %j', (files, expected) => {
    const dir = mkdtempSync(join(scratch, 'project-'));
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    expect(projectTestCommand(dir)).toBe(expected);
  });
});

describe('writeNewFileAtomically', () => {
  it('creates the file and its directory, and refuses an existing one with E_FILE_EXISTS, leaving no temp file', async () => {
    const path = join(scratch, 'new', 'exp.yaml');
    await writeNewFileAtomically(path, 'first\n');
    await expect(writeNewFileAtomically(path, 'second\n')).rejects.toMatchObject({ code: 'E_FILE_EXISTS', exitCode: 73 });
    expect(readFileSync(path, 'utf8')).toBe('first\n');
    expect(readdirSync(join(scratch, 'new'))).toEqual(['exp.yaml']);
  });

  it('says it cannot write, rather than crash, when the directory cannot be made', async () => {
    writeFileSync(join(scratch, 'a-file'), '');
    await expect(writeNewFileAtomically(join(scratch, 'a-file', 'exp.yaml'), 'x')).rejects.toMatchObject({ code: 'E_USAGE' });
  });
});
