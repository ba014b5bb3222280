// intutic as users get it: `npm run pack` makes one tarball; it is installed into an empty prefix
// (`npm i -g`) and as a devDependency of a project outside this repository, with npm's cache and
// registry as this machine has them. From there the installed CLI runs on its own files: the
// version, the installed examples (listed and valid), a command in the sandbox (images built from
// the package's own build files when missing), connect and policy init in the project, and
// `intutic demo` end to end with real Claude Code and the scripted model.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerRequirement, redisRequirement, REPO_ROOT, requireOrSkip, sandboxBuildEnv, scratchDir } from '@intutic/testkit';

const ok = requireOrSkip('the installed package', dockerRequirement()) && requireOrSkip('the installed package', await redisRequirement());
const MAX_TARBALL_BYTES = 5 * 1024 * 1024;
/** Where the demo keeps its reports: whether it was there before this test. */
const reportsDirExisted = existsSync(join(tmpdir(), 'intutic-chaos'));

let root: string;
/** The project's users' environment: a home of their own (policy init writes ~/.intutic), npm's registry as this machine has it. */
let userEnv: NodeJS.ProcessEnv;
let tarball: string;
let globalBin: string;
let project: string;
beforeAll(async () => {
  if (!ok) return;
  root = scratchDir('intutic-package-');
  const registry = execFileSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8' }).trim();
  mkdirSync(join(root, 'home'));
  userEnv = { ...sandboxBuildEnv(), HOME: join(root, 'home'), INTUTIC_HOME: join(root, 'home', '.intutic'), npm_config_registry: registry, NO_COLOR: '1' };
  tarball = execFileSync(process.execPath, [join(REPO_ROOT, 'scripts', 'pack.mjs'), '--out', join(root, 'pack')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
  const npm = (args: string[], cwd: string) =>
    execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, stdio: ['ignore', 'ignore', 'inherit'], timeout: 600_000 });
  npm(['install', '--global', '--prefix', join(root, 'prefix'), tarball], root);
  globalBin = join(root, 'prefix', 'bin', 'intutic');
  project = join(root, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), '{ "name": "a-project", "version": "1.0.0", "private": true }\n');
  writeFileSync(join(project, 'README.md'), '# a project\n');
  npm(['install', '--save-dev', tarball], project);
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { cwd: project, stdio: 'ignore' });
  git('init', '--quiet');
  writeFileSync(join(project, '.gitignore'), 'node_modules/\n');
  git('add', '-A');
  git('commit', '--quiet', '-m', 'a project');
}, 1_200_000);
afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** `npx intutic …` in the project, as its users run it (the devDependency's bin). */
function npx(args: string[], timeoutMs = 120_000, env: NodeJS.ProcessEnv = userEnv): Promise<Ran> {
  return new Promise((resolve) => {
    execFile('npx', ['--no-install', 'intutic', ...args], { cwd: project, env, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

describe.skipIf(!ok)('the intutic package, installed', () => {
  it('is one tarball under 5 MB with the bundles and build files, and no sources, tests or node_modules', () => {
    const size = statSync(tarball).size;
    process.stderr.write(`[package] ${tarball}: ${(size / 1024 / 1024).toFixed(2)} MB\n`);
    expect(size).toBeLessThan(MAX_TARBALL_BYTES);
    const files = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' }).split('\n').filter(Boolean);
    for (const needed of [
      'package/apps/cli/dist/intutic.mjs',
      'package/apps/cli/dist/intutic-proxy.mjs',
      'package/libs/sandbox/images/Dockerfile',
      'package/libs/gates/dist/claude-code-check.cjs',
      'package/apps/mcp-proxy/dist/intutic-mcp-proxy.mjs',
      'package/examples/registry-down.yaml',
      'package/examples/demo/dist/demo.mjs',
      'package/examples/agent-sandbox/Dockerfile',
    ]) {
      expect(files, needed).toContain(needed);
    }
    expect(files.filter((f) => /node_modules\/|\/test\/|\.test\.|(?<!\.d)\.ts$/.test(f))).toEqual([]);
  });

  it('runs from the global prefix: version and the installed examples', () => {
    const run = (...args: string[]) => execFileSync(globalBin, args, { cwd: root, env: userEnv, encoding: 'utf8' });
    expect(run('--version').trim()).toBe(JSON.parse(execFileSync('tar', ['xzOf', tarball, 'package/package.json'], { encoding: 'utf8' })).version);
    expect(run('chaos', 'list')).toContain(`Examples: ${join(root, 'prefix', 'lib', 'node_modules', 'intutic', 'examples')}`);
  });

  it('runs as a devDependency of a project: list, validate, connect, policy init, a sandboxed command', async () => {
    const installed = join(project, 'node_modules', 'intutic', 'examples');
    const list = await npx(['chaos', 'list']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain(`Examples: ${installed}`);
    const examples = readdirSync(installed).filter((name) => name.endsWith('.yaml'));
    expect(examples.length).toBeGreaterThanOrEqual(3);
    for (const name of examples) {
      const valid = await npx(['chaos', 'validate', join(installed, name)]);
      expect(valid.code, `${name}: ${valid.stdout}${valid.stderr}`).toBe(0);
    }
    const connect = await npx(['connect']);
    expect(connect.code, connect.stderr).toBe(0);
    const policy = await npx(['policy', 'init']);
    expect(policy.code, policy.stderr).toBe(0);
    const decided = await npx(['policy', 'test', 'rm -rf ~']);
    expect(decided.code, decided.stdout).toBe(10);
    const exec = await npx(['exec', '--sandbox', '--', 'sh', '-c', 'test -f /work/README.md && echo in-the-sandbox'], 900_000);
    expect(exec.code, exec.stderr).toBe(0);
    expect(exec.stdout).toContain('in-the-sandbox');
  }, 1_200_000);

  it('runs the governance proxy (start) and the MCP proxy around a server, from the project', async () => {
    // The project's own bin (npm links it into node_modules/.bin), run directly so signals reach it.
    const bin = join(project, 'node_modules', '.bin', 'intutic');
    // start: listening, then a clean stop on SIGTERM.
    const proxy = spawn(bin, ['start'], { cwd: project, env: userEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let said = '';
    proxy.stdout.on('data', (chunk: Buffer) => (said += chunk.toString()));
    proxy.stderr.on('data', (chunk: Buffer) => (said += chunk.toString()));
    await expect.poll(() => said, { timeout: 60_000 }).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
    const stopped = once(proxy, 'exit');
    proxy.kill('SIGTERM');
    expect((await stopped)[0], said).toBe(0);

    // mcp-proxy: an MCP initialize passes through to the server (a Node one-liner answering it) and back.
    const server =
      'process.stdin.on("data", (d) => { for (const l of String(d).split("\\n").filter(Boolean)) { const m = JSON.parse(l); if (m.id !== undefined) process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: "2025-06-18", capabilities: {}, serverInfo: { name: "echo", version: "1" } } }) + "\\n"); } })';
    const mcp = spawn(bin, ['mcp-proxy', '--name', 'echo', '--', process.execPath, '-e', server], {
      cwd: project,
      env: userEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let answer = '';
    mcp.stdout.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    mcp.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } } })}\n`,
    );
    await expect.poll(() => answer, { timeout: 60_000 }).toContain('"serverInfo":{"name":"echo"');
    const ended = once(mcp, 'exit');
    mcp.stdin.end();
    await ended;
  }, 180_000);

  it('`intutic demo` runs end to end from the package with real Claude Code and the scripted model', async () => {
    const demo = await npx(['demo'], 1_500_000);
    const all = `${demo.stdout}\n${demo.stderr}`;
    expect(demo.code, all.slice(-4000)).toBe(0);
    expect(all).toMatch(/demo finished in \d+ s: chaos run exited 0 \(verdict scored/);
    expect(all).toContain(`intutic chaos run ${join(project, 'node_modules', 'intutic', 'examples', 'registry-down.yaml')}`);
    // The demo keeps its report for the user; this test removes it (and its directory, if it made it).
    const report = /^report: (\S+\.json)$/m.exec(all)?.[1];
    expect(report).toBeDefined();
    rmSync(report!, { force: true });
    rmSync(report!.replace(/\.json$/, '.artifacts'), { recursive: true, force: true });
    if (!reportsDirExisted && readdirSync(dirname(report!)).length === 0) rmSync(dirname(report!), { recursive: true, force: true });
  }, 1_800_000);

  it("`intutic demo --agent gemini` runs end to end from the package with real Gemini CLI (its image from the package's Dockerfile)", async () => {
    // Its report and experiment copy go under TMPDIR, inside this file's directory.
    const tmp = join(root, 'tmp');
    mkdirSync(tmp);
    const demo = await npx(['demo', '--agent', 'gemini'], 1_500_000, { ...userEnv, TMPDIR: tmp });
    const all = `${demo.stdout}\n${demo.stderr}`;
    expect(demo.code, all.slice(-4000)).toBe(0);
    expect(all).toMatch(/demo finished in \d+ s: chaos run exited 0 \(verdict scored, score 88\.9\)/);
    expect(all).toMatch(/intutic chaos run \S+\.gemini\.yaml --sandbox-image intutic\/agent-sandbox:\S+-gemini/);
  }, 1_800_000);
});
