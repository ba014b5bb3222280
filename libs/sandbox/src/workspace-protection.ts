// Governance the agent must not change, as mounts. Each read-only path of the workspace is bind-mounted
// read-only over itself: writing, chmod-ing or replacing it fails (EROFS), and as a mount point it can
// be neither renamed nor removed (EBUSY). The way round that — move its parent away and put a new one
// in its place — is closed by making every directory between /work and it a mount point too (writable:
// only the governance inside is frozen). A host directory of governance files (policy snapshot, bypass
// list, plan) is mounted read-only at /intutic/governance, outside anything the agent owns.
import { lstat } from 'node:fs/promises';
import { join, posix } from 'node:path';
import type Docker from 'dockerode';
import { IntuticError } from '@intutic/errors';

export const GOVERNANCE_MOUNT = '/intutic/governance';
const WORKDIR = '/work';

export interface WorkspaceProtection {
  /** Host directory mounted read-only at /intutic/governance. */
  governanceDir?: string;
  /** Workspace-relative files and directories the agent must not change. */
  readOnly: readonly string[];
  /**
   * Workspace-relative directories that stay writable but become mount points of their own, so they
   * cannot be renamed or removed: a writable hole in a read-only directory (the gates' log), or a
   * directory the sandbox's record lives in (the events directory).
   */
  pinned?: readonly string[];
}

function relativeInside(path: string): string {
  const normal = posix.normalize(path).replace(/\/+$/, '');
  if (normal === '' || normal === '.' || normal === '..' || normal.startsWith('../') || posix.isAbsolute(normal)) {
    throw new IntuticError('E_USAGE', `a protected path must be inside the workspace: ${JSON.stringify(path)}`);
  }
  return normal;
}

function ancestors(path: string): string[] {
  const parts = path.split('/');
  return parts.slice(1).map((_, i) => parts.slice(0, i + 1).join('/'));
}

/** Every workspace-relative mount point, read-only or not, parents before children. */
export function protectedMountPoints(protection: WorkspaceProtection): { path: string; readOnly: boolean }[] {
  const readOnly = new Set(protection.readOnly.map(relativeInside));
  const insideReadOnly = (path: string) => [...readOnly].some((r) => path === r || path.startsWith(`${r}/`));
  const writable = new Set<string>();
  for (const path of [...readOnly, ...(protection.pinned ?? []).map(relativeInside)]) {
    if (!readOnly.has(path)) writable.add(path);
    // A read-only directory's own subdirectories cannot be renamed already; only what is outside it is pinned.
    for (const parent of ancestors(path)) if (!insideReadOnly(parent)) writable.add(parent);
  }
  const all = [
    ...[...readOnly].map((path) => ({ path, readOnly: true })),
    ...[...writable].filter((p) => !readOnly.has(p)).map((path) => ({ path, readOnly: false })),
  ];
  const depth = (p: string) => p.split('/').length;
  return all.sort((a, b) => depth(a.path) - depth(b.path) || a.path.localeCompare(b.path));
}

/** The mounts that protect governance in a sandbox whose workspace is `workspace` (mounted at /work). */
export function protectionMounts(workspace: string, protection: WorkspaceProtection): Docker.MountConfig {
  const mounts: Docker.MountConfig = protectedMountPoints(protection).map(({ path, readOnly }) => ({
    Type: 'bind',
    Source: join(workspace, path),
    Target: `${WORKDIR}/${path}`,
    ReadOnly: readOnly,
  }));
  if (protection.governanceDir) mounts.push({ Type: 'bind', Source: protection.governanceDir, Target: GOVERNANCE_MOUNT, ReadOnly: true });
  return mounts;
}

/**
 * Every mount source must exist and none may lead through a symlink: the engine follows one, and a
 * link in the worktree could point the read-only mount at a file the agent can still write elsewhere.
 */
export async function checkProtectionSources(workspace: string, protection: WorkspaceProtection): Promise<void> {
  for (const { path } of protectedMountPoints(protection)) {
    for (const step of [...ancestors(path), path]) {
      const info = await lstat(join(workspace, step)).catch(() => undefined);
      if (!info || info.isSymbolicLink()) {
        throw new IntuticError(
          'E_SANDBOX_FAILED',
          `cannot protect /work/${path} in the sandbox: ${step} ${info ? 'is a symlink' : 'does not exist'} in the workspace`,
        );
      }
    }
  }
  if (
    protection.governanceDir &&
    !(await lstat(protection.governanceDir).then(
      (s) => s.isDirectory(),
      () => false,
    ))
  ) {
    throw new IntuticError('E_SANDBOX_FAILED', `the governance directory ${protection.governanceDir} does not exist`);
  }
}
