// Orphan cleanup: a worker that starts again removes the sandbox containers a crashed one left, found
// by the labels it gave them. Only containers carrying the sandbox label are ever touched.
import type { Engine } from './engine.ts';
import { SANDBOX_LABEL } from './container-spec.ts';

export async function removeSandboxContainers(engine: Engine, labels: Record<string, string>): Promise<number> {
  const filters = { label: [`${SANDBOX_LABEL}=1`, ...Object.entries(labels).map(([key, value]) => `${key}=${value}`)] };
  const containers = await engine.docker.listContainers({ all: true, filters });
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
