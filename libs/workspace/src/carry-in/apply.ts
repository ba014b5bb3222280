// Apply a captured carry-in to one repetition: copy into the worktree what the commit lacks, keep (but
// path-rewrite) what it has, put the policy files in the governance directory the sandbox mounts
// read-only at /intutic/governance, and return the env values that point the gates there and the
// governance the sandbox must keep the agent from changing. Writes only inside the worktree and the
// governance directory, and never through a symlink the commit has.
import { chmod, lstat, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, posix } from 'node:path';
import { IntuticError } from '@intutic/errors';
import { ENV } from '@intutic/faults';
import { POLICY_REQUIRED_ENV } from '@intutic/governance';
import { assertGoverned } from './governed.ts';
import { mergeRegistrations } from './merge.ts';
import { assertNoSymlink, protectGovernance, type GovernanceProtection } from './protect.ts';
import { decodeText, rewriteProjectPaths } from './rewrite.ts';
import { GATES_DIR, HOOK_SETTINGS_FILES, SANDBOX_POLICY_DIR, SANDBOX_WORKDIR, type CarryIn, type CarryInEntry } from './schema.ts';

export interface ApplyOptions {
  /** Host directory outside the worktree, mounted read-only at /intutic/governance: policy files go under its policy/. */
  governanceDir: string;
}

export interface AppliedCarryIn {
  entries: CarryInEntry[];
  /** INTUTIC_SNAPSHOT_RULES / INTUTIC_APPROVED_BYPASSES as seen inside the sandbox, when carried in, and INTUTIC_POLICY_REQUIRED with a snapshot. */
  env: Record<string, string>;
  /** Worktree paths the sandbox mounts read-only (and the directories around them it pins). */
  protection: GovernanceProtection;
}

/** A relative path that stays inside the worktree; a payload naming ../ or / is refused. */
function safeRelative(path: string): string {
  const normal = posix.normalize(path);
  if (normal.startsWith('../') || normal === '..' || posix.isAbsolute(normal) || normal === '.') {
    throw new IntuticError('E_CONFIG_INVALID', `refusing to carry in ${JSON.stringify(path)}: it is not inside the project`);
  }
  return normal;
}

async function lstatOrNull(path: string) {
  return lstat(path).catch(() => null);
}

function rewrite(bytes: Buffer, carryIn: CarryIn): { bytes: Buffer; rewritten: boolean } {
  const text = decodeText(bytes);
  if (text === null) return { bytes, rewritten: false };
  const out = rewriteProjectPaths(text, carryIn.project_paths, SANDBOX_WORKDIR);
  return out === text ? { bytes, rewritten: false } : { bytes: Buffer.from(out, 'utf8'), rewritten: true };
}

/**
 * One carried file into the worktree: the commit's copy kept (path-rewritten) when it has one, else
 * written with its mode. Files are applied side by side: each writes only its own path (a captured
 * carry-in names each once), and none creates a symlink another could be written through.
 */
async function applyFile(worktree: string, file: CarryIn['files'][number], carryIn: CarryIn): Promise<CarryInEntry> {
  const rel = safeRelative(file.path);
  await assertNoSymlink(worktree, rel);
  const dest = join(worktree, rel);
  if (await lstatOrNull(dest)) {
    // The commit's copy wins; only the machine's paths in it are made to work in the sandbox. Hook
    // settings and .mcp.json that connect edited get intutic's registrations merged into it.
    const committed = await readFile(dest);
    const merged = file.merge ? mergeRegistrations(committed.toString('utf8'), Buffer.from(file.content_b64, 'base64').toString('utf8')) : null;
    const { bytes, rewritten } = rewrite(merged === null ? committed : Buffer.from(merged, 'utf8'), carryIn);
    if (rewritten || merged !== null) await writeFile(dest, bytes);
    return { path: rel, action: merged === null ? 'kept_committed' : 'merged', rewritten };
  }
  const { bytes, rewritten } = rewrite(Buffer.from(file.content_b64, 'base64'), carryIn);
  await mkdir(dirname(dest), { recursive: true });
  await writeFile(dest, bytes);
  await chmod(dest, file.mode);
  return { path: rel, action: 'carried_in', rewritten };
}

/** The policy files into the governance directory, readable by the agent's user whatever the umask (read-only to it by the mount). */
async function applyPolicy(carryIn: CarryIn, governanceDir: string): Promise<{ entries: CarryInEntry[]; env: Record<string, string> }> {
  const env: Record<string, string> = {};
  const policyDir = join(governanceDir, 'policy');
  await mkdir(policyDir, { recursive: true });
  for (const dir of [governanceDir, policyDir]) await chmod(dir, 0o755);
  const entries: CarryInEntry[] = [];
  for (const policy of carryIn.policy) {
    if (policy.name.includes('/') || policy.name === '.' || policy.name === '..') {
      throw new IntuticError('E_CONFIG_INVALID', `refusing to carry in the policy file ${JSON.stringify(policy.name)}: not a file name`);
    }
    const dest = join(policyDir, policy.name);
    await writeFile(dest, Buffer.from(policy.content_b64, 'base64'));
    await chmod(dest, 0o644);
    env[policy.role === 'snapshot' ? ENV.snapshotRules : ENV.approvedBypasses] = `${SANDBOX_POLICY_DIR}/${policy.name}`;
    // The gates fail closed when this snapshot goes missing, instead of deciding without its rules.
    if (policy.role === 'snapshot') env[POLICY_REQUIRED_ENV] = '1';
    entries.push({ path: `${SANDBOX_POLICY_DIR}/${policy.name}`, action: 'carried_in', rewritten: false });
  }
  return { entries, env };
}

/** Every one settled, then the first failure in their order: no write is left in flight behind an error. */
async function settledInOrder<T>(work: ReadonlyArray<Promise<T>>): Promise<T[]> {
  const results = await Promise.allSettled(work);
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  return results.map((r) => (r as PromiseFulfilledResult<T>).value);
}

async function worktreeSettings(worktree: string): Promise<Map<string, string>> {
  const settings = new Map<string, string>();
  for (const file of HOOK_SETTINGS_FILES) {
    const path = join(worktree, file);
    if ((await lstatOrNull(path))?.isFile()) settings.set(file, await readFile(path, 'utf8'));
  }
  return settings;
}

export async function applyCarryIn(worktree: string, carryIn: CarryIn, options: ApplyOptions): Promise<AppliedCarryIn> {
  // The files and the policy files side by side, both settled before either's failure is thrown;
  // then the protection, which reads what they made.
  const files = settledInOrder(carryIn.files.map((file) => applyFile(worktree, file, carryIn)));
  const policy = applyPolicy(carryIn, options.governanceDir);
  await Promise.allSettled([files, policy]);
  const carried = await files;
  const { entries, env } = await policy;
  if (carryIn.files.some((f) => f.path.startsWith(`${GATES_DIR}/`))) assertGoverned(await worktreeSettings(worktree));
  return { entries: [...carried, ...entries], env, protection: await protectGovernance(worktree) };
}

/** One line per entry, for the run's output and the repetition's log. */
export function formatCarryIn(entries: readonly CarryInEntry[]): string[] {
  return entries.map((e) => {
    const what =
      e.action === 'carried_in'
        ? 'carried in'
        : e.action === 'merged'
          ? "the committed copy with intutic's registrations merged in"
          : 'kept the committed copy';
    return `${e.path}: ${what}${e.rewritten ? `, project path rewritten to ${SANDBOX_WORKDIR}` : ''}`;
  });
}
