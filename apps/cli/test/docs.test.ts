// The docs a newcomer follows must be true: the reference pages are what `npm run docs` renders from
// the catalog and the schema today, and every block marked ```sh runnable in README.md and docs/ runs
// as written, against the built CLI, in a fresh git project with a home of its own (nothing of this
// machine's ~/.intutic is read or written). Blocks that need a container engine or an agent are not
// marked runnable.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { scratchDir } from '@intutic/testkit';

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const BIN = join(REPO_ROOT, 'apps/cli/bin/intutic.mjs');
const REFERENCE = ['docs/reference/faults.md', 'docs/reference/probes.md', 'docs/reference/experiment.md'];

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? markdownFiles(join(dir, entry.name)) : entry.name.endsWith('.md') ? [join(dir, entry.name)] : [],
  );
}

/** Every ```sh runnable block, with where it is (file:line) for the failure message. */
function runnableBlocks(files: readonly string[]): { where: string; script: string }[] {
  const blocks: { where: string; script: string }[] = [];
  for (const file of files) {
    const lines = readFileSync(file, 'utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (!/^```(sh|bash) runnable\s*$/.test(lines[i]!)) continue;
      const end = lines.indexOf('```', i + 1);
      blocks.push({ where: `${relative(REPO_ROOT, file)}:${i + 1}`, script: lines.slice(i + 1, end).join('\n') });
      i = end;
    }
  }
  return blocks;
}

/** A git project with one commit, a home of its own, and `intutic` on PATH as the built bin. */
function freshProject() {
  const dir = scratchDir('docs-runnable-');
  const home = join(dir, 'home');
  const project = join(dir, 'project');
  const bin = join(dir, 'bin');
  for (const d of [home, project, bin]) mkdirSync(d);
  writeFileSync(join(bin, 'intutic'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(bin, 'intutic'), 0o755);
  const env = { PATH: `${bin}:${process.env['PATH'] ?? ''}`, HOME: home, INTUTIC_HOME: join(home, '.intutic'), LANG: 'C.UTF-8' };
  const git = (...args: string[]) => execFileSync('git', args, { cwd: project, env: { ...env, GIT_CONFIG_NOSYSTEM: '1' }, stdio: 'pipe' });
  git('init', '-q');
  writeFileSync(join(project, 'README.md'), '# a project\n');
  git('add', 'README.md');
  git('-c', 'user.name=docs', '-c', 'user.email=docs@test.invalid', 'commit', '-qm', 'start');
  return { project, env };
}

const docsFiles = () => [join(REPO_ROOT, 'README.md'), ...markdownFiles(join(REPO_ROOT, 'docs'))];

beforeAll(() => {
  // The unit target builds the CLI first; a lone `vitest run` of this file builds it when missing.
  if (!existsSync(join(REPO_ROOT, 'apps/cli/dist/intutic.mjs')))
    execFileSync(process.execPath, [join(REPO_ROOT, 'scripts/build.mjs')], { cwd: REPO_ROOT, stdio: 'pipe', timeout: 120_000 });
}, 180_000);

describe('the reference pages', () => {
  it('are what npm run docs renders from the code (scripts/docs/generate.ts --check)', () => {
    const tsx = join(REPO_ROOT, 'node_modules/.bin/tsx');
    const result = spawnSync(tsx, ['scripts/docs/generate.ts', '--check'], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(result.status, `${result.stdout}${result.stderr}`).toBe(0);
  }, 90_000);

  it('name the probes, options and verify timeout the issue asks the reference to cover', () => {
    const text = REFERENCE.map((path) => readFileSync(join(REPO_ROOT, path), 'utf8')).join('\n');
    for (const needed of ['retry_after_respected', 'no_tight_loop', 'min_pass_rate', 'INTUTIC_CHAOS_VERIFY_TIMEOUT_S', 'retry_after_s', 'after_calls']) {
      expect(text).toContain(needed);
    }
  });
});

describe('the runnable blocks of README.md and docs/', () => {
  const blocks = runnableBlocks(docsFiles());

  it('exist: the README shows at least one', () => {
    expect(blocks.filter((b) => b.where.startsWith('README.md')).length).toBeGreaterThan(0);
  });

  it.each(blocks.map((b) => [b.where, b.script]))(
    '%s runs as written and exits 0, never with a stack trace',
    (where, script) => {
      const { project, env } = freshProject();
      const result = spawnSync('sh', ['-eu', '-c', script], { cwd: project, env, encoding: 'utf8', timeout: 60_000 });
      const output = `${result.stdout}${result.stderr}`;
      expect(output, where).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
      expect(result.status, `${where} exited ${result.status}:\n${output}`).toBe(0);
    },
    90_000,
  );
});
