// A root-owned workspace is lent to the sandbox's agent user (uid 1000 in our images) for the run and
// given back by the entrypoint on exit. When the container had to be killed before it could, the host
// finishes the job here (only possible, and only needed, when the host side runs as root).
import { lchown, lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

export const AGENT_UID = 1000;
export const AGENT_GID = 1000;

/** Give every entry the agent user owns under `dir` back to root; never follows symlinks. */
export async function giveBackWorkspace(dir: string): Promise<number> {
  if (process.getuid?.() !== 0) return 0;
  let changed = 0;
  const visit = async (path: string): Promise<void> => {
    const info = await lstat(path).catch(() => undefined);
    if (!info) return;
    if (info.uid === AGENT_UID || info.gid === AGENT_GID) {
      await lchown(path, info.uid === AGENT_UID ? 0 : info.uid, info.gid === AGENT_GID ? 0 : info.gid).catch(() => undefined);
      changed++;
    }
    if (info.isDirectory()) for (const name of await readdir(path).catch(() => [])) await visit(join(path, name));
  };
  await visit(dir);
  return changed;
}
