// The sandbox images, built on first use from the Dockerfile beside this library and tagged with the
// CLI's version: intutic/sandbox:<version> and intutic/sandbox:<version>-node. Idempotent: an image
// whose context-hash label matches is reused; any other is rebuilt, its build output streamed line by
// line to onProgress (build-progress.ts turns those lines into progress and a log file).
import type Docker from 'dockerode';
import { IntuticError } from '@intutic/errors';
import type { Engine } from './engine.ts';
import { SANDBOX_LABEL } from './container-spec.ts';
import { locateImagesDir, stageBuildContext, type ImageVariant } from './build-context.ts';
import { BUILD_OUTPUT_HINT } from './build-progress.ts';
import { withBuildLock } from './build-lock.ts';

export const DEFAULT_BASE_IMAGE = 'debian:bookworm-slim';
export const IMAGE_REPOSITORY = 'intutic/sandbox';
export const CONTEXT_HASH_LABEL = 'dev.intutic.sandbox.context-hash';

export interface EnsureSandboxImageOptions {
  version: string;
  variant: ImageVariant;
  /** Default: INTUTIC_SANDBOX_BASE_IMAGE, else debian:bookworm-slim. */
  baseImage?: string;
  /** Default: INTUTIC_EXTRA_CA_CERTS (colon-separated paths). */
  extraCaCerts?: string[];
  onProgress?: (line: string) => void;
  env?: NodeJS.ProcessEnv;
}

export function sandboxImageTag(version: string, variant: ImageVariant): string {
  return `${IMAGE_REPOSITORY}:${version}${variant === 'node' ? '-node' : ''}`;
}

/** Which variant a tag names, when it is one of ours for this version (else undefined). */
export function sandboxVariantOf(image: string, version: string): ImageVariant | undefined {
  if (image === sandboxImageTag(version, 'base')) return 'base';
  if (image === sandboxImageTag(version, 'node')) return 'node';
  return undefined;
}

export function imageSettingsFromEnv(env: NodeJS.ProcessEnv): { baseImage: string; extraCaCerts: string[] } {
  return {
    baseImage: env.INTUTIC_SANDBOX_BASE_IMAGE || DEFAULT_BASE_IMAGE,
    extraCaCerts: (env.INTUTIC_EXTRA_CA_CERTS ?? '').split(':').filter(Boolean),
  };
}

async function inspectImage(docker: Docker, tag: string): Promise<Docker.ImageInspectInfo | undefined> {
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
  id?: string;
  progress?: string;
  error?: string;
  errorDetail?: { message?: string };
}

async function runBuild(
  docker: Docker,
  context: { dir: string; entries: string[] },
  options: Docker.ImageBuildOptions,
  onProgress: (line: string) => void,
): Promise<void> {
  const stream = await docker.buildImage({ context: context.dir, src: context.entries }, options);
  const recent: string[] = [];
  const remember = (line: string) => {
    recent.push(line);
    if (recent.length > 25) recent.shift();
    onProgress(line);
  };
  let failure: string | undefined;
  await new Promise<void>((resolve, reject) => {
    docker.modem.followProgress(
      stream,
      (error: Error | null) => (error ? reject(error) : resolve()),
      (event: BuildEvent) => {
        if (event.error) failure = event.errorDetail?.message ?? event.error;
        const text = event.stream ?? (event.status ? [event.id, event.status, event.progress].filter(Boolean).join(' ') : '');
        for (const line of text.split('\n')) if (line.trim()) remember(line.trimEnd());
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
        'behind a TLS-intercepting proxy, set INTUTIC_EXTRA_CA_CERTS to its CA bundle; to build from another base, set INTUTIC_SANDBOX_BASE_IMAGE',
      ],
    });
  }
}

const pending = new Map<string, Promise<string>>();

/** Make sure the tag exists and was built from the current context; build it when not. */
export function ensureSandboxImage(engine: Engine, opts: EnsureSandboxImageOptions): Promise<string> {
  const env = opts.env ?? process.env;
  const fromEnv = imageSettingsFromEnv(env);
  const baseImage = opts.baseImage ?? fromEnv.baseImage;
  const extraCaCerts = opts.extraCaCerts ?? fromEnv.extraCaCerts;
  const tag = sandboxImageTag(opts.version, opts.variant);
  const key = JSON.stringify([tag, baseImage, extraCaCerts, engine.endpoint]);
  let job = pending.get(key);
  if (!job) {
    job = buildIfStale(engine, {
      tag,
      version: opts.version,
      variant: opts.variant,
      baseImage,
      extraCaCerts,
      env,
      onProgress: opts.onProgress ?? (() => undefined),
    }).finally(() => pending.delete(key));
    pending.set(key, job);
  }
  return job;
}

interface BuildRequest {
  tag: string;
  version: string;
  variant: ImageVariant;
  baseImage: string;
  extraCaCerts: string[];
  env: NodeJS.ProcessEnv;
  onProgress: (line: string) => void;
}
type BuildContext = Awaited<ReturnType<typeof stageBuildContext>>;

async function buildIfStale(engine: Engine, o: BuildRequest): Promise<string> {
  const context = await stageBuildContext({ variant: o.variant, baseImage: o.baseImage, extraCaCerts: o.extraCaCerts, imagesDir: locateImagesDir(o.env) });
  try {
    if ((await inspectImage(engine.docker, o.tag))?.Config?.Labels?.[CONTEXT_HASH_LABEL] === context.hash) return o.tag;
    return await withBuildLock(o.tag, engine.endpoint, o.onProgress, () => buildLocked(engine, o, context));
  } finally {
    await context.cleanup();
  }
}

/** With the build lock held: build unless the process that held it before built the same image meanwhile. */
async function buildLocked(engine: Engine, o: BuildRequest, context: BuildContext): Promise<string> {
  const existing = await inspectImage(engine.docker, o.tag);
  if (existing?.Config?.Labels?.[CONTEXT_HASH_LABEL] === context.hash) return o.tag;
  o.onProgress(existing ? `rebuilding ${o.tag}: its build inputs changed` : `building ${o.tag} from ${o.baseImage} (first use; this takes a few minutes)`);
  await runBuild(
    engine.docker,
    context,
    {
      t: o.tag,
      buildargs: { BASE_IMAGE: o.baseImage, WITH_NODE: o.variant === 'node' ? '1' : '0' },
      labels: {
        [SANDBOX_LABEL]: 'image',
        [CONTEXT_HASH_LABEL]: context.hash,
        'dev.intutic.sandbox.version': o.version,
        'dev.intutic.sandbox.variant': o.variant,
      },
      rm: true,
      forcerm: true,
    },
    o.onProgress,
  );
  const built = await inspectImage(engine.docker, o.tag);
  if (built?.Config?.Labels?.[CONTEXT_HASH_LABEL] !== context.hash) {
    throw new IntuticError('E_IMAGE_BUILD_FAILED', `the build of ${o.tag} finished but the tag does not carry the expected build hash`, {
      hints: ['another build of the same tag may have run at the same time; try again'],
    });
  }
  // The previous image is now untagged; drop it unless something still uses it.
  if (existing && existing.Id !== built.Id)
    await engine.docker
      .getImage(existing.Id)
      .remove()
      .catch(() => undefined);
  o.onProgress(`built ${o.tag}`);
  return o.tag;
}
