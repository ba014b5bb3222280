// Build logs do not pile up: each new log prunes the directory to the newest logs, never keeping one
// older than a fortnight. Only our own files (image-build-*.log) are touched; what cannot be removed
// is left for the next time.
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const BUILD_LOG_PREFIX = 'image-build-';
export const BUILD_LOGS_KEPT = 20;
export const BUILD_LOG_MAX_AGE_MS = 14 * 24 * 3600 * 1000;

/** Remove the build logs beyond the newest `keep`, and any older than `maxAgeMs`; returns how many went. */
export function pruneBuildLogs(dir: string, options: { keep?: number; maxAgeMs?: number; now?: number } = {}): number {
  const { keep = BUILD_LOGS_KEPT, maxAgeMs = BUILD_LOG_MAX_AGE_MS, now = Date.now() } = options;
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.startsWith(BUILD_LOG_PREFIX) && name.endsWith('.log'));
  } catch {
    return 0;
  }
  const logs = names
    .map((name) => {
      try {
        return { path: join(dir, name), mtime: statSync(join(dir, name)).mtimeMs };
      } catch {
        return null;
      }
    })
    .filter((log) => log !== null)
    .sort((a, b) => b.mtime - a.mtime);
  let removed = 0;
  logs.forEach((log, i) => {
    if (i < keep && now - log.mtime <= maxAgeMs) return;
    try {
      rmSync(log.path, { force: true });
      removed++;
    } catch {
      // The next prune tries again.
    }
  });
  return removed;
}
