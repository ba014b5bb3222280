// The image a test's own Redis runs from, built here from libs/testkit/redis/Dockerfile on the offline
// base image: nothing is pulled. Its context is this host's redis-server and the libraries it loads
// (see the Dockerfile for why). The tag is a hash of all of that, so a run builds it at most once and
// a changed binary or Dockerfile gets a new image; a file lock keeps concurrent builds from racing.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, copyFileSync, existsSync, mkdirSync, openSync, readFileSync, realpathSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Requirement } from './requirements.ts';
import { dockerRequirement } from './requirements.ts';
import { disableReaper } from './containers.ts';
import { scratchDir } from './scratch.ts';

export const REDIS_BASE_IMAGE = 'local/debian:bookworm';
export const HOST_REDIS_SERVER = '/usr/bin/redis-server';
const DOCKERFILE = fileURLToPath(new URL('../redis/Dockerfile', import.meta.url));
const REPOSITORY = 'intutic-testkit/redis';

function imageExists(image: string): boolean {
  try {
    execFileSync('docker', ['image', 'inspect', image], { stdio: 'ignore', timeout: 30_000 });
    return true;
  } catch {
    return false;
  }
}

/** What a test needs for its own Redis: the engine, the offline base image and a redis-server to copy. */
export function ownRedisRequirement(): Requirement {
  const docker = dockerRequirement();
  if (!docker.ok) return docker;
  if (!imageExists(REDIS_BASE_IMAGE))
    return { ok: false, reason: `the offline base image ${REDIS_BASE_IMAGE} is missing (build it: bash scripts/setup/engine.sh)` };
  if (!existsSync(HOST_REDIS_SERVER)) return { ok: false, reason: `no ${HOST_REDIS_SERVER} to put in the test Redis image (apt-get install redis-server)` };
  return { ok: true, reason: '' };
}

/** redis-server and every library it loads, the loader last (`ldd` names it by its path alone). */
function hostRedisFiles(): { binary: string; libraries: string[]; loader: string } {
  const ldd = execFileSync('ldd', [HOST_REDIS_SERVER], { encoding: 'utf8' });
  const libraries = [...ldd.matchAll(/=>\s*(\/\S+)/g)].map((m) => m[1]!);
  const loader = /^\s*(\/\S*ld-linux\S*)\s/m.exec(ldd)?.[1];
  if (!loader) throw new Error(`could not find the dynamic loader of ${HOST_REDIS_SERVER} in:\n${ldd}`);
  return { binary: realpathSync(HOST_REDIS_SERVER), libraries, loader };
}

function imageTag(files: ReturnType<typeof hostRedisFiles>): string {
  const hash = createHash('sha256').update(readFileSync(DOCKERFILE));
  for (const file of [files.binary, ...files.libraries, files.loader]) hash.update(file).update(readFileSync(file));
  return `${REPOSITORY}:${hash.digest('hex').slice(0, 16)}`;
}

function stageContext(files: ReturnType<typeof hostRedisFiles>): string {
  const context = scratchDir('intutic-redis-image-');
  const root = join(context, 'opt-redis');
  mkdirSync(join(root, 'bin'), { recursive: true });
  mkdirSync(join(root, 'lib'));
  // Named redis-server: redis picks its mode by argv[0] (the Debian binary is redis-check-rdb's).
  copyFileSync(files.binary, join(root, 'bin', 'redis-server'));
  for (const lib of files.libraries) copyFileSync(lib, join(root, 'lib', basename(lib)));
  copyFileSync(files.loader, join(root, 'lib', 'ld.so'));
  copyFileSync(DOCKERFILE, join(context, 'Dockerfile'));
  return context;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Hold an exclusive lock file (its holder's pid inside; taken over when that process is gone). */
async function withLock<T>(path: string, work: () => Promise<T>): Promise<T> {
  for (const deadline = Date.now() + 600_000; ;) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(readFileSync(path, 'utf8').trim() || 'NaN');
      if (Number.isInteger(holder) && !alive(holder)) unlinkSync(path);
      else if (Date.now() > deadline) throw new Error(`waited 10 minutes for the lock ${path} (held by pid ${holder})`);
      else await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    return await work();
  } finally {
    unlinkSync(path);
  }
}

let built: Promise<string> | undefined;

/** The tag of the test Redis image, built first when this machine does not have it yet. */
export function redisImage(): Promise<string> {
  built ??= (async () => {
    const files = hostRedisFiles();
    const tag = imageTag(files);
    if (imageExists(tag)) return tag;
    return withLock(join(tmpdir(), `${tag.replace(/[/:]/g, '-')}.lock`), async () => {
      if (imageExists(tag)) return tag;
      disableReaper();
      const { GenericContainer } = await import('testcontainers');
      // deleteOnExit false: the image is the cache the next run reuses.
      await GenericContainer.fromDockerfile(stageContext(files)).build(tag, { deleteOnExit: false });
      return tag;
    });
  })();
  built.catch(() => (built = undefined));
  return built;
}
