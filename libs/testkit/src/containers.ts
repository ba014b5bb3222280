// Containers the tests start with testcontainers, and their clean-up without its reaper (Ryuk needs an
// image from a registry, and none is reachable here). Every container carries OWNER_LABEL = the pid
// of the test process that started it. Three nets, so nothing outlives the suite: the file's own
// clean-up (vitest-setup.ts) removes the process's containers; a process 'exit' hook does the same on
// a crash; and a detached watchdog removes them once the process is gone, even after a kill -9.
import { execFileSync, spawn } from 'node:child_process';

/** Set on every container a test starts: `docker ps -a --filter label=intutic.testkit` lists them. */
export const TESTKIT_LABEL = 'intutic.testkit';
/** The pid of the test process that owns the container. */
export const OWNER_LABEL = 'intutic.testkit.owner';

/** Turn testcontainers' reaper off; call before the first container or image build. */
export function disableReaper(env: NodeJS.ProcessEnv = process.env): void {
  env.TESTCONTAINERS_RYUK_DISABLED = 'true';
}

/** The labels a test container carries (what the sweeps look for). */
export function ownedLabels(kind: string): Record<string, string> {
  return { [TESTKIT_LABEL]: kind, [OWNER_LABEL]: String(process.pid) };
}

let watched = false;

/**
 * Start, once per process, the nets that remove this process's containers: the 'exit' hook and the
 * watchdog (a detached shell, the stand-in for Ryuk, that waits for this pid to end).
 */
export function watchOwnContainers(): void {
  if (watched) return;
  watched = true;
  process.on('exit', () => removeContainers(String(process.pid)));
  const script = `while kill -0 ${process.pid} 2>/dev/null; do sleep 2; done; ids=$(docker ps -aq --filter label=${OWNER_LABEL}=${process.pid}); [ -z "$ids" ] || docker rm -f -v $ids >/dev/null 2>&1`;
  spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' }).unref();
}

function listContainers(filter: string): string[] {
  try {
    return execFileSync('docker', ['ps', '-aq', '--filter', filter], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 30_000 })
      .split('\n')
      .filter(Boolean);
  } catch {
    return [];
  }
}

function removeIds(ids: string[]): void {
  if (ids.length === 0) return;
  try {
    execFileSync('docker', ['rm', '-f', '-v', ...ids], { stdio: 'ignore', timeout: 60_000 });
  } catch {
    // Already gone, or the engine is away: the watchdog still has them.
  }
}

/** Remove (killing if running) every test container owned by `owner` (a pid). */
export function removeContainers(owner: string): void {
  removeIds(listContainers(`label=${OWNER_LABEL}=${owner}`));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Remove the test containers whose owning process is gone (a test file that crashed earlier). */
export function sweepOrphanContainers(): void {
  const orphans: string[] = [];
  for (const id of listContainers(`label=${TESTKIT_LABEL}`)) {
    let owner = '';
    try {
      owner = execFileSync('docker', ['inspect', '--format', `{{index .Config.Labels "${OWNER_LABEL}"}}`, id], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim();
    } catch {
      continue;
    }
    if (!/^\d+$/.test(owner) || !alive(Number(owner))) orphans.push(id);
  }
  removeIds(orphans);
}

/** Per-file clean-up (vitest-setup.ts): this process's containers and any orphans, only if it started one. */
export function removeTestContainers(): void {
  if (!watched) return;
  removeContainers(String(process.pid));
  sweepOrphanContainers();
}
