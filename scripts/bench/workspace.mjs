// A repetition's workspace: creating the standalone repository of the pinned commit (createWorkspace:
// a local clone that copies the objects, then the checkout) next to `git worktree add --detach` of
// the same commit, the way the runner made workspaces before, on one generated repository of 20,000
// files and 5,000 commits. Taken in turn, one of each per round after a warm-up; medians and the
// spread are printed. Target: at most 1.5x the worktree.
// Usage: node scripts/bench/workspace.mjs [rounds=5] [files=20000] [commits=5000]
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { register } from 'tsx/esm/api';
import { emitRow } from './_rows.mjs';

register();
const { createWorkspace, removeWorkspace } = await import('@intutic/workspace');
const execFileAsync = promisify(execFile);
const [rounds = 5, files = 20_000, commits = 5_000] = process.argv.slice(2).map(Number);
const TARGET = 1.5;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const git = (cwd, ...args) => execFileAsync('git', args, { cwd, maxBuffer: 64 << 20 });

/** The test repository, written by git fast-import in one pass: every file in the first commit, three changed per later commit. */
async function generateRepo(dir) {
  await git(dir, 'init', '--quiet', '--initial-branch=main');
  const importer = spawn('git', ['fast-import', '--quiet'], { cwd: dir, stdio: ['pipe', 'inherit', 'inherit'] });
  const data = (s) => `data ${Buffer.byteLength(s)}\n${s}\n`;
  const path = (i) => `src/m${Math.floor(i / 400)}/d${Math.floor(i / 20) % 20}/file${i}.txt`;
  let chunk = [];
  for (let c = 0; c < commits; c++) {
    chunk.push(`commit refs/heads/main\ncommitter Bench <bench@example.invalid> ${1_700_000_000 + c} +0000\n${data(`commit ${c}`)}`);
    if (c === 0) for (let i = 0; i < files; i++) chunk.push(`M 100644 inline ${path(i)}\n${data(`file ${i}\nsecond line of ${i}\n`)}`);
    else
      for (let k = 0; k < 3; k++) {
        const i = (c * 7919 + k * 104_729) % files;
        chunk.push(`M 100644 inline ${path(i)}\n${data(`file ${i}, changed in commit ${c}\n`)}`);
      }
    chunk.push('\n');
    if (chunk.length > 2000 && !importer.stdin.write(chunk.join(''))) await new Promise((r) => importer.stdin.once('drain', r));
    if (chunk.length > 2000) chunk = [];
  }
  importer.stdin.end(chunk.join(''));
  const code = await new Promise((r) => importer.on('close', r));
  if (code !== 0) throw new Error(`git fast-import exited ${code}`);
  return (await git(dir, 'rev-parse', 'main~1')).stdout.trim();
}

const root = realpathSync(mkdtempSync(join(tmpdir(), 'intutic-bench-workspace-')));
// npm run bench stops a script that overruns with SIGTERM: the generated repository goes with it.
process.once('SIGTERM', () => {
  rmSync(root, { recursive: true, force: true });
  process.exit(143);
});
try {
  const repo = join(root, 'project');
  const { mkdirSync } = await import('node:fs');
  mkdirSync(repo);
  let t = performance.now();
  const sha = await generateRepo(repo);
  console.log(
    `test repository: ${files.toLocaleString('en')} files, ${commits.toLocaleString('en')} commits, made in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );

  const worktreeAdd = async (path) => {
    const start = performance.now();
    await git(repo, 'worktree', 'add', '--quiet', '--detach', path, sha);
    const took = performance.now() - start;
    await git(repo, 'worktree', 'remove', '--force', '--force', path);
    return took;
  };
  const standalone = async (path) => {
    const start = performance.now();
    await createWorkspace(repo, sha, path);
    const took = performance.now() - start;
    await removeWorkspace(null, path);
    return took;
  };

  // Warm-up: the pack and the git binary in the page cache for both.
  await worktreeAdd(join(root, 'warm-worktree'));
  await standalone(join(root, 'warm-standalone'));
  const times = { worktree: [], standalone: [] };
  for (let i = 0; i < rounds; i++) {
    // Alternate which goes first, so neither always runs right after the other's removal.
    const order = i % 2 ? ['standalone', 'worktree'] : ['worktree', 'standalone'];
    for (const kind of order) times[kind].push(await (kind === 'worktree' ? worktreeAdd : standalone)(join(root, `${kind}-${i}`)));
  }
  await git(repo, 'worktree', 'prune');

  const ours = median(times.standalone);
  const base = median(times.worktree);
  const spread = (xs) => `${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)} ms`;
  const ratio = ours / base;
  console.log(`workspace creation, ${rounds} rounds taken in turn`);
  console.log(`  createWorkspace (standalone clone + checkout)  median ${ours.toFixed(0).padStart(6)} ms   spread ${spread(times.standalone)}`);
  console.log(`  git worktree add --detach                      median ${base.toFixed(0).padStart(6)} ms   spread ${spread(times.worktree)}`);
  console.log(`  ratio ${ratio.toFixed(2)}x   target <= ${TARGET}x: ${ratio <= TARGET ? 'met' : 'NOT met'}`);
  emitRow({
    row: `workspace of a ${files / 1000}k-file, ${commits / 1000}k-commit repo vs git worktree add`,
    measured: ours,
    baseline: base,
    unit: 'ms',
    target: `<= ${TARGET}x`,
    met: ratio <= TARGET,
    note: `spreads: ours ${spread(times.standalone)}, worktree ${spread(times.worktree)}`,
  });
  if (ratio > TARGET) process.exitCode = 1;
} finally {
  rmSync(root, { recursive: true, force: true });
}
