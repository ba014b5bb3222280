// Container engine detection and the one health check shared by `chaos run` and `exec --sandbox`:
// try DOCKER_HOST (or Docker's default socket), then Podman's Docker-compatible sockets, and accept the
// first engine that actually starts a container. Failure names every endpoint tried and how to fix it.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { IntuticError } from '@intutic/errors';
import { SANDBOX_LABEL } from './container-spec.ts';

export interface Engine {
  docker: Docker;
  kind: 'docker' | 'podman';
  /** Where the engine answered, e.g. unix:///var/run/docker.sock. */
  endpoint: string;
  /** The engine's version string. */
  version: string;
  /** The local image the start check ran; undefined when the engine had no usable image yet (the
   * first image build, whose RUN steps start containers, is then the proof). */
  probeImage?: string;
}

interface Candidate {
  endpoint: string;
  options?: Docker.DockerOptions;
  /** Why this endpoint cannot even be tried (e.g. no socket file). */
  unusable?: string;
}

const PING_TIMEOUT_MS = 3_000;
/**
 * An engine that answered its ping is alive; its /version can still take seconds: Podman 4 gathers
 * its whole `podman info` for it (1.3-8 s measured here on an idle and a loaded machine), where
 * Docker answers in milliseconds.
 */
const VERSION_TIMEOUT_MS = 20_000;
const PROBE_TIMEOUT_MS = 30_000;

function unixCandidate(path: string): Candidate {
  const endpoint = `unix://${path}`;
  return existsSync(path) ? { endpoint, options: { socketPath: path } } : { endpoint, unusable: 'no socket there' };
}

function hostCandidate(value: string, env: NodeJS.ProcessEnv): Candidate {
  if (value.startsWith('unix://')) return unixCandidate(value.slice('unix://'.length));
  if (value.startsWith('tcp://') || value.startsWith('http://') || value.startsWith('https://')) {
    const url = new URL(value.replace(/^tcp:/, 'http:'));
    const tls = Boolean(env.DOCKER_TLS_VERIFY) || url.protocol === 'https:';
    const options: Docker.DockerOptions = { host: url.hostname, port: Number(url.port || (tls ? 2376 : 2375)), protocol: tls ? 'https' : 'http' };
    if (tls) {
      const certDir = env.DOCKER_CERT_PATH ?? join(env.HOME ?? '', '.docker');
      try {
        Object.assign(options, {
          ca: readFileSync(join(certDir, 'ca.pem')),
          cert: readFileSync(join(certDir, 'cert.pem')),
          key: readFileSync(join(certDir, 'key.pem')),
        });
      } catch (error) {
        return { endpoint: value, unusable: `TLS certificates not readable in ${certDir}: ${(error as Error).message}` };
      }
    }
    return { endpoint: value, options };
  }
  return { endpoint: value, unusable: 'unsupported DOCKER_HOST scheme (use unix:// or tcp://)' };
}

/** Every endpoint checkEngine tries, in order. */
export function engineCandidates(env: NodeJS.ProcessEnv): Candidate[] {
  const candidates: Candidate[] = [];
  if (env.DOCKER_HOST) candidates.push(hostCandidate(env.DOCKER_HOST, env));
  else candidates.push(unixCandidate('/var/run/docker.sock'));
  if (env.CONTAINER_HOST?.startsWith('unix://')) candidates.push(hostCandidate(env.CONTAINER_HOST, env));
  if (env.XDG_RUNTIME_DIR) candidates.push(unixCandidate(join(env.XDG_RUNTIME_DIR, 'podman/podman.sock')));
  candidates.push(unixCandidate('/run/podman/podman.sock'));
  const seen = new Set<string>();
  return candidates.filter((c) => !seen.has(c.endpoint) && seen.add(c.endpoint));
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Images that certainly have `true`, best first: distribution images, which intutic never replaces,
 * then our own. A probe container holds its image while it runs, so a probe from a sandbox image
 * being rebuilt at that moment kept the replaced image from being removed.
 */
const PROBE_IMAGE_PREFERENCE = [/^(local\/)?debian:/, /^(docker\.io\/library\/)?debian:/, /ubuntu:/, /alpine:/, /busybox:/, /^intutic\/sandbox:/];

/** Podman lists every tag with its registry (docker.io/intutic/sandbox:…) where Docker leaves Docker
 * Hub's out, so the preference is matched without it. */
const withoutRegistry = (tag: string): string => tag.replace(/^(docker\.io\/(library\/)?|localhost\/)/, '');

function pickProbeImage(tags: string[]): string | undefined {
  for (const pattern of PROBE_IMAGE_PREFERENCE) {
    const found = tags.find((tag) => pattern.test(withoutRegistry(tag)));
    if (found) return found;
  }
  return undefined;
}

/** The process that started a probe container (label value: its pid). */
export const PROBE_PID_LABEL = 'dev.intutic.probe.pid';

/** Start and remove a throwaway container: the proof that the engine can run one, not just answer. */
async function proveStart(docker: Docker): Promise<string | undefined> {
  const images = await docker.listImages();
  const image = pickProbeImage(images.flatMap((i) => i.RepoTags ?? []).filter((t) => t !== '<none>:<none>'));
  if (!image) return undefined;
  const container = await docker.createContainer({
    Image: image,
    Entrypoint: ['true'],
    Cmd: [],
    // The pid tells one process's probes from another's, so a check can tell that its own are gone.
    Labels: { [SANDBOX_LABEL]: 'probe', [PROBE_PID_LABEL]: String(process.pid) },
    HostConfig: { NetworkMode: 'none', LogConfig: { Type: 'none', Config: {} } },
  });
  try {
    await container.start();
    const { StatusCode } = (await container.wait()) as { StatusCode: number };
    if (StatusCode !== 0) throw new IntuticError('E_SANDBOX_UNAVAILABLE', `a probe container from ${image} exited with ${StatusCode}`);
  } finally {
    await container.remove({ force: true }).catch(() => undefined);
  }
  return image;
}

async function tryCandidate(candidate: Candidate): Promise<Engine> {
  // Loaded here, not at the top: every `intutic` process (a repetition's proxy too) would pay for it.
  const { default: Dockerode } = await import('dockerode');
  const docker = new Dockerode(candidate.options);
  await withTimeout(docker.ping(), PING_TIMEOUT_MS, 'the engine');
  const version = (await withTimeout(docker.version(), VERSION_TIMEOUT_MS, 'the engine')) as Docker.DockerVersion & { Components?: { Name: string }[] };
  const kind = (version.Components ?? []).some((c) => /podman/i.test(c.Name)) ? 'podman' : 'docker';
  const probeImage = await withTimeout(proveStart(docker), PROBE_TIMEOUT_MS, 'starting a probe container');
  return { docker, kind, endpoint: candidate.endpoint, version: version.Version, ...(probeImage ? { probeImage } : {}) };
}

function reason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\s+/g, ' ').trim().slice(0, 300);
}

/** How long a read-only look waits for an engine: a busy engine answers a ping slowly. */
const ANSWER_TIMEOUT_MS = 10_000;

/**
 * Every engine that answers a ping, without starting anything: for reading what is there (a run's
 * leftover containers), where checkEngine's start proof would cost a container. Asked side by side,
 * and all of them: a busy Docker that answers late must not leave the look to a Podman beside it that
 * holds none of the run's containers. Empty when none answers.
 */
export async function answeringEngines(opts: { env?: NodeJS.ProcessEnv } = {}): Promise<Pick<Engine, 'docker' | 'endpoint'>[]> {
  const { default: Dockerode } = await import('dockerode');
  const usable = engineCandidates(opts.env ?? process.env).filter((c) => !c.unusable);
  const answered = await Promise.all(
    usable.map(async (candidate) => {
      const docker = new Dockerode(candidate.options);
      try {
        await withTimeout(docker.ping(), ANSWER_TIMEOUT_MS, 'the engine');
        return { docker, endpoint: candidate.endpoint };
      } catch {
        return null;
      }
    }),
  );
  return answered.filter((e): e is Pick<Engine, 'docker' | 'endpoint'> => e !== null);
}

/**
 * Find a container engine that can start containers. Throws E_SANDBOX_UNAVAILABLE naming every
 * endpoint tried, why each failed, and how to get one running.
 */
export async function checkEngine(opts: { env?: NodeJS.ProcessEnv } = {}): Promise<Engine> {
  const env = opts.env ?? process.env;
  const tried: string[] = [];
  for (const candidate of engineCandidates(env)) {
    if (candidate.unusable) {
      tried.push(`${candidate.endpoint}: ${candidate.unusable}`);
      continue;
    }
    try {
      return await tryCandidate(candidate);
    } catch (error) {
      tried.push(`${candidate.endpoint}: ${reason(error)}`);
    }
  }
  throw new IntuticError(
    'E_SANDBOX_UNAVAILABLE',
    'no container engine (Docker or Podman) could start a container; the sandbox needs one and never falls back to running on this machine',
    {
      hints: [
        'tried:',
        ...tried.map((t) => `  - ${t}`),
        'to fix, one of:',
        '  - Docker: start the daemon (`sudo systemctl start docker`, or `sudo dockerd &`); in an intutic checkout `bash scripts/setup/engine.sh` installs and starts it',
        '  - Podman: `systemctl --user start podman.socket`, or `podman system service --time=0 &`',
        '  - an engine elsewhere: set DOCKER_HOST (unix:///path/to/socket or tcp://host:port)',
      ],
    },
  );
}
