// Orphan cleanup: a worker that starts again removes the sandbox containers a crashed one left, found
// by the labels it gave them. Only containers carrying the sandbox label are ever touched. Listing the
// same set is how `chaos inspect` shows what a job left running.
import type { Engine } from './engine.ts';
import { SANDBOX_LABEL } from './container-spec.ts';

/** A sandbox container as `docker ps -a` would list it. */
export interface SandboxContainer {
  id: string;
  name: string;
  /** The engine's state word: running, exited, created, … */
  state: string;
  /** The engine's own description, e.g. "Up 3 minutes". */
  status: string;
}

const labelFilters = (labels: Record<string, string>) => ({
  label: [`${SANDBOX_LABEL}=1`, ...Object.entries(labels).map(([key, value]) => `${key}=${value}`)],
});

/** The sandbox containers, running or not, that carry every one of these labels. */
export async function listSandboxContainers(engine: Pick<Engine, 'docker'>, labels: Record<string, string>): Promise<SandboxContainer[]> {
  const containers = await engine.docker.listContainers({ all: true, filters: labelFilters(labels) });
  return containers.map((info) => ({
    id: info.Id,
    name: (info.Names?.[0] ?? info.Id.slice(0, 12)).replace(/^\//, ''),
    state: info.State,
    status: info.Status,
  }));
}

export async function removeSandboxContainers(engine: Engine, labels: Record<string, string>): Promise<number> {
  const containers = await engine.docker.listContainers({ all: true, filters: labelFilters(labels) });
  let removed = 0;
  for (const info of containers) {
    try {
      await engine.docker.getContainer(info.Id).remove({ force: true });
      removed++;
    } catch (error) {
      // Already gone (AutoRemove raced us) is what we wanted.
      if ((error as { statusCode?: number }).statusCode !== 404 && (error as { statusCode?: number }).statusCode !== 409) throw error;
    }
  }
  return removed;
}
