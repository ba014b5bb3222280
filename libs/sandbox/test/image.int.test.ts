// The sandbox images: built once and reused while their inputs are unchanged, rebuilt (never used
// stale) when they change, build failures reported with the build's output; the -node variant with
// Node, npm and the bundles; and a user image FROM it (the spec's Dockerfile) working unchanged.
import { cpSync, existsSync, readdirSync, rmSync, appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerRequirement, REPO_ROOT, requireOrSkip, sandboxBuildEnv, scratchDir } from '@intutic/testkit';
import { CONTEXT_HASH_LABEL, ensureSandboxImage, runInSandbox } from '../src/index.ts';
import { CLI_VERSION, docker, sandboxFixture, tempWorkspace, type SandboxFixture } from './support.ts';

const ready = requireOrSkip('sandbox images', dockerRequirement());
const scratch = scratchDir('intutic-image-test-');
const testVersion = `0.0.0-test${process.pid}`;
const workspaces: string[] = [];
const workspace = (): string => {
  const dir = tempWorkspace();
  workspaces.push(dir);
  return dir;
};

const labelOf = async (tag: string) => {
  const inspect = await docker(['image', 'inspect', tag]);
  if (inspect.code !== 0) return undefined;
  const [info] = JSON.parse(inspect.stdout) as { Id: string; Config: { Labels: Record<string, string>; Entrypoint: string[] } }[];
  return { id: info!.Id, hash: info!.Config.Labels[CONTEXT_HASH_LABEL], entrypoint: info!.Config.Entrypoint };
};

describe.runIf(ready)('the sandbox images', () => {
  let fx: SandboxFixture;

  beforeAll(async () => {
    fx = await sandboxFixture('base');
  }, 600_000);

  afterAll(async () => {
    // The failed build left the layers of its successful steps, children of the empty base image.
    const empty = (await docker(['image', 'inspect', '--format', '{{.Id}}', 'intutic-test/empty:1'])).stdout.trim();
    const all = (await docker(['image', 'ls', '-a', '-q', '--no-trunc'])).stdout.split('\n').filter(Boolean);
    const parents = all.length ? (await docker(['image', 'inspect', '--format', '{{.Id}} {{.Parent}}', ...all])).stdout : '';
    const children = parents
      .split('\n')
      .filter((line) => empty && line.endsWith(` ${empty}`))
      .map((line) => line.split(' ')[0]!);
    if (children.length) await docker(['rmi', '-f', ...children]);
    await docker(['rmi', '-f', `intutic/sandbox:${testVersion}`, 'intutic-test/empty:1', 'intutic-test/user-agent:1']);
    for (const dir of [scratch, ...workspaces]) rmSync(dir, { recursive: true, force: true });
  });

  it('reuses an image built from the same inputs and rebuilds, with progress, when they change', async () => {
    const progress: string[] = [];
    const env = sandboxBuildEnv();
    const tag = await ensureSandboxImage(fx.engine, { version: testVersion, variant: 'base', env, onProgress: (l) => progress.push(l) });
    expect(tag).toBe(`intutic/sandbox:${testVersion}`);
    expect(progress.some((l) => l.startsWith('Step '))).toBe(true);
    const first = await labelOf(tag);
    expect(first?.hash).toMatch(/^[0-9a-f]{32}$/);
    expect(first?.entrypoint).toEqual(['/usr/local/bin/intutic-sandbox-entrypoint']);

    progress.length = 0;
    await ensureSandboxImage(fx.engine, { version: testVersion, variant: 'base', env, onProgress: (l) => progress.push(l) });
    expect(progress).toEqual([]);

    // A changed entrypoint (through the images-dir override) makes the tag stale: it is rebuilt.
    const images = join(scratch, 'images');
    cpSync(join(REPO_ROOT, 'libs/sandbox/images'), images, { recursive: true });
    appendFileSync(join(images, 'entrypoint.sh'), '# changed\n');
    await ensureSandboxImage(fx.engine, {
      version: testVersion,
      variant: 'base',
      env: { ...env, INTUTIC_SANDBOX_IMAGES_DIR: images },
      onProgress: (l) => progress.push(l),
    });
    expect(progress[0]).toMatch(/^rebuilding intutic\/sandbox:.*: its build inputs changed/);
    const second = await labelOf(tag);
    expect(second?.hash).not.toBe(first?.hash);
    // The replaced image is removed, not left dangling.
    expect((await docker(['image', 'inspect', first!.id])).code).not.toBe(0);
  });

  it('reports a failed build with its output', async () => {
    // An image with nothing in it: the first RUN step cannot start a shell.
    expect((await docker(['import', '-', 'intutic-test/empty:1'], '\0'.repeat(10_240))).code).toBe(0);
    const error = await ensureSandboxImage(fx.engine, {
      version: testVersion,
      variant: 'base',
      baseImage: 'intutic-test/empty:1',
      onProgress: () => undefined,
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'E_IMAGE_BUILD_FAILED' });
    expect((error as Error).message).toMatch(/building intutic\/sandbox:.* failed/);
    expect((error as { hints: string[] }).hints.join('\n')).toContain('Step ');
  });

  describe('the -node variant', () => {
    let node: SandboxFixture;
    beforeAll(async () => {
      node = await sandboxFixture('node');
    }, 900_000);

    it('has Node.js, npm, and the MCP proxy and JS gates this checkout built', async () => {
      let out = '';
      const result = await runInSandbox(node.engine, {
        image: node.image,
        workspace: workspace(),
        envNames: [],
        env: {},
        command: 'node --version; npm --version; command -v intutic-mcp-proxy || echo no-mcp-proxy; ls /opt/intutic/gates 2>/dev/null | sort',
        onStdout: (c) => (out += c.toString()),
      });
      expect(result.exitCode).toBe(0);
      const lines = out.trim().split('\n');
      expect(lines[0]).toMatch(/^v(1[89]|2\d)\./);
      expect(lines[1]).toMatch(/^\d+\.\d+\.\d+$/);
      const mcpBundle = existsSync(join(REPO_ROOT, 'apps/mcp-proxy/dist/intutic-mcp-proxy.mjs'));
      expect(lines[2]).toBe(mcpBundle ? '/usr/local/bin/intutic-mcp-proxy' : 'no-mcp-proxy');
      const gatesDir = join(REPO_ROOT, 'libs/gates/dist');
      expect(lines.slice(3)).toEqual(existsSync(gatesDir) ? readdirSync(gatesDir).sort() : []);
    });

    it("runs a user image built FROM it with the spec's Dockerfile, still inside the firewall", async () => {
      const context = join(scratch, 'user-image');
      cpSync(new URL('./fixtures/user-image/', import.meta.url), context, { recursive: true });
      const build = await docker(['build', '-q', '--build-arg', `INTUTIC_VERSION=${CLI_VERSION}`, '-t', 'intutic-test/user-agent:1', context]);
      expect(build.code, build.stderr).toBe(0);
      expect((await labelOf('intutic-test/user-agent:1'))?.entrypoint).toEqual(['/usr/local/bin/intutic-sandbox-entrypoint']);
      const dir = workspace();
      writeFileSync(join(dir, 'input.txt'), '1.2.3\n');
      let out = '';
      const result = await runInSandbox(node.engine, {
        image: 'intutic-test/user-agent:1',
        workspace: dir,
        envNames: [],
        env: {},
        command:
          'semver "$(cat input.txt)"; awk \'$1 == "CapEff:" {print $2}\' /proc/self/status; curl -sS -m 5 -o /dev/null "$(npm config get registry)" 2>/dev/null || echo registry-blocked',
        onStdout: (c) => (out += c.toString()),
      });
      expect(result.exitCode).toBe(0);
      expect(out.trim().split('\n')).toEqual(['1.2.3', '0000000000000000', 'registry-blocked']);
    });
  });
});
