// Apply a captured carry-in to one repetition's worktree: copy what the commit lacks, keep (but
// path-rewrite) what it has, drop the policy files under .intutic-chaos/policy/ and return the env
// values that point the gates there. Writes only inside the worktree.
import { chmod, lstat, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, posix } from 'node:path';
import { IntuticError } from '@intutic/errors';
import { ENV } from '@intutic/faults';
import { decodeText, rewriteProjectPaths } from './rewrite.ts';
import { POLICY_DIR_IN_WORKTREE, SANDBOX_WORKDIR, type CarryIn, type CarryInEntry } from './schema.ts';

export interface AppliedCarryIn {
  entries: CarryInEntry[];
  /** INTUTIC_SNAPSHOT_RULES / INTUTIC_APPROVED_BYPASSES as seen inside the sandbox, when carried in. */
  env: Record<string, string>;
}

/** A relative path that stays inside the worktree; a payload naming ../ or / is refused. */
function safeRelative(path: string): string {
  const normal = posix.normalize(path);
  if (normal.startsWith('../') || normal === '..' || posix.isAbsolute(normal) || normal === '.') {
    throw new IntuticError('E_CONFIG_INVALID', `refusing to carry in ${JSON.stringify(path)}: it is not inside the project`);
  }
  return normal;
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

function rewrite(bytes: Buffer, carryIn: CarryIn): { bytes: Buffer; rewritten: boolean } {
  const text = decodeText(bytes);
  if (text === null) return { bytes, rewritten: false };
  const out = rewriteProjectPaths(text, carryIn.project_paths, SANDBOX_WORKDIR);
  return out === text ? { bytes, rewritten: false } : { bytes: Buffer.from(out, 'utf8'), rewritten: true };
}

export async function applyCarryIn(worktree: string, carryIn: CarryIn): Promise<AppliedCarryIn> {
  const entries: CarryInEntry[] = [];
  for (const file of carryIn.files) {
    const rel = safeRelative(file.path);
    const dest = join(worktree, rel);
    if (await exists(dest)) {
      // The commit's copy wins; only the machine's paths in it are made to work in the sandbox.
      const { bytes, rewritten } = rewrite(await readFile(dest), carryIn);
      if (rewritten) await writeFile(dest, bytes);
      entries.push({ path: rel, action: 'kept_committed', rewritten });
      continue;
    }
    const { bytes, rewritten } = rewrite(Buffer.from(file.content_b64, 'base64'), carryIn);
    await mkdir(dirname(dest), { recursive: true });
    await writeFile(dest, bytes);
    await chmod(dest, file.mode);
    entries.push({ path: rel, action: 'carried_in', rewritten });
  }

  const env: Record<string, string> = {};
  for (const policy of carryIn.policy) {
    const rel = safeRelative(posix.join(POLICY_DIR_IN_WORKTREE, policy.name));
    const dest = join(worktree, rel);
    await mkdir(dirname(dest), { recursive: true });
    await writeFile(dest, Buffer.from(policy.content_b64, 'base64'));
    await chmod(dest, 0o644);
    env[policy.role === 'snapshot' ? ENV.snapshotRules : ENV.approvedBypasses] = `${SANDBOX_WORKDIR}/${rel}`;
    entries.push({ path: rel, action: 'carried_in', rewritten: false });
  }
  return { entries, env };
}

/** One line per entry, for the run's output and the repetition's log. */
export function formatCarryIn(entries: readonly CarryInEntry[]): string[] {
  return entries.map((e) => {
    const what = e.action === 'carried_in' ? 'carried in' : 'kept the committed copy';
    return `${e.path}: ${what}${e.rewritten ? `, project path rewritten to ${SANDBOX_WORKDIR}` : ''}`;
  });
}
