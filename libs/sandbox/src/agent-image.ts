// The agent sandbox images `intutic/agent-sandbox:<CLI version>` (Claude Code) and its `-codex` and
// `-gemini` variants, built from the Dockerfiles in examples/agent-sandbox/ of the checkout or installed package,
// FROM intutic/sandbox:<version>-node (built first when missing or stale), through the engine API
// with the build's output streamed to onProgress. Idempotent: an image whose inputs label matches is
// reused. `npx tsx examples/agent-sandbox/build.ts` runs it alone.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type Docker from 'dockerode';
import { IntuticError } from '@intutic/errors';
import { BUILD_OUTPUT_HINT } from './build-progress.ts';
import { withBuildLock } from './build-lock.ts';
import type { Engine } from './engine.ts';
import { ensureSandboxImage } from './image.ts';

/**
 * The checkout or installed package this runs from: the first directory above this module that
 * holds examples/agent-sandbox/Dockerfile (the module may be bundled elsewhere in it, as in the demo).
 */
function rootAbove(dir: string): string {
  for (let at = dir; ; at = dirname(at)) {
    if (existsSync(join(at, 'examples', 'agent-sandbox', 'Dockerfile'))) return at;
    if (dirname(at) === at) {
      throw new IntuticError('E_IMAGE_BUILD_FAILED', `examples/agent-sandbox/Dockerfile is not in any directory above ${dir}`, {
        hints: ['The agent sandbox image is built from an intutic checkout or package that holds examples/agent-sandbox/; run it from one.'],
      });
    }
  }
}
/** Found when first needed, so importing this module never fails where no image is built. */
let root: string | undefined;
const repoRoot = (): string => (root ??= rootAbove(dirname(fileURLToPath(import.meta.url))));
const agentSandboxDir = (): string => join(repoRoot(), 'examples', 'agent-sandbox');
export const AGENT_IMAGE_REPOSITORY = 'intutic/agent-sandbox';
export const AGENT_INPUTS_LABEL = 'dev.intutic.agent-sandbox.inputs';

export interface AgentPins {
  claudeCode: string;
  codex: string;
  geminiCli: string;
  mcpFilesystem: string;
}

/**
 * The versions the tests were written against: scripts/setup/agents.sh's Claude Code and Codex
 * (INTUTIC_CLAUDE_CODE_VERSION / INTUTIC_CODEX_VERSION override them there and here) and the
 * repository's pinned MCP filesystem server.
 */
export function agentPins(env: NodeJS.ProcessEnv = process.env): AgentPins {
  const agentsSh = readFileSync(join(repoRoot(), 'scripts', 'setup', 'agents.sh'), 'utf8');
  const pinned = (name: string): string | undefined => new RegExp(`${name}_VERSION="\\$\\{INTUTIC_${name}_VERSION:-([^}"]+)\\}"`).exec(agentsSh)?.[1];
  const claude = pinned('CLAUDE_CODE');
  const codex = pinned('CODEX');
  const gemini = pinned('GEMINI_CLI');
  const rootPkg = JSON.parse(readFileSync(join(repoRoot(), 'package.json'), 'utf8')) as { devDependencies?: Record<string, string> };
  const fs = rootPkg.devDependencies?.['@modelcontextprotocol/server-filesystem'];
  if (!claude || !codex || !gemini || !fs) {
    throw new IntuticError(
      'E_IMAGE_BUILD_FAILED',
      'cannot read the pinned Claude Code, Codex and Gemini CLI (scripts/setup/agents.sh) or MCP filesystem server (package.json) versions',
      {
        hints: [
          'scripts/setup/agents.sh must set CLAUDE_CODE_VERSION="${INTUTIC_CLAUDE_CODE_VERSION:-…}", and CODEX_VERSION and GEMINI_CLI_VERSION likewise; package.json must list @modelcontextprotocol/server-filesystem in devDependencies.',
        ],
      },
    );
  }
  return {
    claudeCode: env.INTUTIC_CLAUDE_CODE_VERSION || claude,
    codex: env.INTUTIC_CODEX_VERSION || codex,
    geminiCli: env.INTUTIC_GEMINI_CLI_VERSION || gemini,
    mcpFilesystem: fs,
  };
}

export function agentImageTag(version: string): string {
  return `${AGENT_IMAGE_REPOSITORY}:${version}`;
}

/** The registry npm on this machine uses (a mirror, a corporate registry), so the image installs from the same one. */
export function hostNpmRegistry(env: NodeJS.ProcessEnv = process.env): string | undefined {
  try {
    const out = execFileSync('npm', ['config', 'get', 'registry'], { env, encoding: 'utf8', timeout: 20_000, stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return /^https?:\/\//.test(out) ? out : undefined;
  } catch {
    return undefined;
  }
}

async function imageInfo(docker: Docker, tag: string): Promise<Docker.ImageInspectInfo | undefined> {
  try {
    return await docker.getImage(tag).inspect();
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return undefined;
    throw error;
  }
}

interface BuildEvent {
  stream?: string;
  status?: string;
  error?: string;
  errorDetail?: { message?: string };
}

async function build(docker: Docker, dockerfile: string, options: Docker.ImageBuildOptions, onProgress: (line: string) => void): Promise<void> {
  const stream = await docker.buildImage({ context: agentSandboxDir(), src: [dockerfile] }, { ...options, dockerfile });
  const recent: string[] = [];
  let failure: string | undefined;
  await new Promise<void>((resolve, reject) => {
    docker.modem.followProgress(
      stream,
      (error: Error | null) => (error ? reject(error) : resolve()),
      (event: BuildEvent) => {
        if (event.error) failure = event.errorDetail?.message ?? event.error;
        for (const line of (event.stream ?? event.status ?? '').split('\n')) {
          if (!line.trim()) continue;
          recent.push(line.trimEnd());
          if (recent.length > 25) recent.shift();
          onProgress(line.trimEnd());
        }
      },
    );
  }).catch((error: unknown) => {
    failure ??= error instanceof Error ? error.message : String(error);
  });
  if (failure) {
    throw new IntuticError('E_IMAGE_BUILD_FAILED', `building ${options.t} failed: ${failure}`, {
      hints: [
        BUILD_OUTPUT_HINT,
        ...recent.map((l) => `  ${l}`),
        'behind a TLS-intercepting proxy, build the -node image with INTUTIC_EXTRA_CA_CERTS set to its CA bundle (see examples/agent-sandbox/README.md)',
      ],
    });
  }
}

export interface EnsureAgentImageOptions {
  /** The intutic CLI version: the -node image and this image are tagged with it. */
  version: string;
  /** INTUTIC_SANDBOX_BASE_IMAGE, INTUTIC_EXTRA_CA_CERTS, INTUTIC_CLAUDE_CODE_VERSION are read from it. */
  env?: NodeJS.ProcessEnv;
  onProgress?: (line: string) => void;
}

interface LayerBuild {
  tag: string;
  dockerfile: string;
  /** The image it is built FROM: its id is part of the inputs, so a rebuilt parent rebuilds this. */
  parentTag: string;
  buildargs: Record<string, string>;
  what: string;
}

/** Build `tag` FROM its parent unless an image built from the same Dockerfile, parent and arguments exists. */
async function ensureLayer(engine: Engine, layer: LayerBuild, env: NodeJS.ProcessEnv, say: (line: string) => void): Promise<string> {
  const parent = await imageInfo(engine.docker, layer.parentTag);
  if (!parent) throw new IntuticError('E_IMAGE_BUILD_FAILED', `${layer.parentTag} is missing right after it was built`);
  const dockerfile = readFileSync(join(agentSandboxDir(), layer.dockerfile));
  const inputs = createHash('sha256')
    .update(dockerfile)
    .update(`\0${parent.Id}\0${JSON.stringify(layer.buildargs)}`)
    .digest('hex')
    .slice(0, 32);
  if ((await imageInfo(engine.docker, layer.tag))?.Config?.Labels?.[AGENT_INPUTS_LABEL] === inputs) return layer.tag;
  return withBuildLock(layer.tag, engine.endpoint, say, () => buildLayerLocked(engine, layer, inputs, env, say));
}

/** With the build lock held: build unless the process that held it before built the same layer meanwhile. */
async function buildLayerLocked(engine: Engine, layer: LayerBuild, inputs: string, env: NodeJS.ProcessEnv, say: (line: string) => void): Promise<string> {
  const existing = await imageInfo(engine.docker, layer.tag);
  if (existing?.Config?.Labels?.[AGENT_INPUTS_LABEL] === inputs) return layer.tag;
  say(
    existing
      ? `rebuilding ${layer.tag}: ${layer.parentTag} or the pinned agent changed`
      : `building ${layer.tag} FROM ${layer.parentTag} with ${layer.what} (first use; about a minute)`,
  );
  const registry = hostNpmRegistry(env);
  await build(
    engine.docker,
    layer.dockerfile,
    {
      t: layer.tag,
      buildargs: { ...layer.buildargs, ...(registry ? { NPM_REGISTRY: registry } : {}) },
      labels: { [AGENT_INPUTS_LABEL]: inputs },
      rm: true,
      forcerm: true,
    },
    say,
  );
  const built = await imageInfo(engine.docker, layer.tag);
  if (built?.Config?.Labels?.[AGENT_INPUTS_LABEL] !== inputs) {
    throw new IntuticError('E_IMAGE_BUILD_FAILED', `the build of ${layer.tag} finished but the tag does not carry the expected inputs label`, {
      hints: ['another build of the same tag may have run at the same time; try again'],
    });
  }
  // The replaced image is untagged now; drop it unless a container still uses it.
  if (existing && existing.Id !== built.Id)
    await engine.docker
      .getImage(existing.Id)
      .remove()
      .catch(() => undefined);
  say(`built ${layer.tag}`);
  return layer.tag;
}

/** Make sure intutic/agent-sandbox:<version> exists and was built from the current -node image and pins. */
export async function ensureAgentImage(engine: Engine, options: EnsureAgentImageOptions): Promise<string> {
  const env = options.env ?? process.env;
  const say = options.onProgress ?? (() => undefined);
  const parentTag = await ensureSandboxImage(engine, { version: options.version, variant: 'node', env, onProgress: say });
  const pins = agentPins(env);
  return ensureLayer(
    engine,
    {
      tag: agentImageTag(options.version),
      dockerfile: 'Dockerfile',
      parentTag,
      buildargs: { INTUTIC_VERSION: options.version, CLAUDE_CODE_VERSION: pins.claudeCode, MCP_FILESYSTEM_VERSION: pins.mcpFilesystem },
      what: `Claude Code ${pins.claudeCode}`,
    },
    env,
    say,
  );
}

/** A harness on top of the agent image, from its own Dockerfile.<name>: `<agent image>-<name>`. */
async function ensureHarnessLayer(engine: Engine, options: EnsureAgentImageOptions, name: 'codex' | 'gemini'): Promise<string> {
  const env = options.env ?? process.env;
  const parentTag = await ensureAgentImage(engine, options);
  const pins = agentPins(env);
  const [arg, version, what] = name === 'codex' ? ['CODEX_VERSION', pins.codex, 'Codex'] : ['GEMINI_CLI_VERSION', pins.geminiCli, 'Gemini CLI'];
  return ensureLayer(
    engine,
    {
      tag: `${parentTag}-${name}`,
      dockerfile: `Dockerfile.${name}`,
      parentTag,
      buildargs: { AGENT_IMAGE: parentTag, [arg]: version },
      what: `${what} ${version}`,
    },
    env,
    options.onProgress ?? (() => undefined),
  );
}

/** intutic/agent-sandbox:<version>-codex: the agent image plus Codex (Dockerfile.codex), for the Codex fault matrix. */
export function ensureCodexAgentImage(engine: Engine, options: EnsureAgentImageOptions): Promise<string> {
  return ensureHarnessLayer(engine, options, 'codex');
}

/** intutic/agent-sandbox:<version>-gemini: the agent image plus Gemini CLI and its system settings (Dockerfile.gemini). */
export function ensureGeminiAgentImage(engine: Engine, options: EnsureAgentImageOptions): Promise<string> {
  return ensureHarnessLayer(engine, options, 'gemini');
}

/** The CLI version the built bundle reports (the image tags follow it). */
export function cliVersion(): string {
  const pkg = JSON.parse(readFileSync(join(repoRoot(), 'apps', 'cli', 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}
