// Capture at enqueue what the spec's "Bring your agent" carries into every repetition: the generated
// gate scripts (.intutic/hooks/), the project-level hook settings files, and the policy snapshot
// and approved-bypass list the gates read. Reads only; the project is never written.
import { lstat, readdir, readFile, realpath, stat } from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import { IntuticError } from '@intutic/errors';
import { ENV } from '@intutic/faults';
import { BYPASSES_FILE, SNAPSHOT_FILE } from '@intutic/governance';
import { commitHasPath, committedText } from '../git.ts';
import { assertGoverned } from './governed.ts';
import { mergeRegistrations } from './merge.ts';
import { decodeText, rewriteProjectPaths } from './rewrite.ts';
import {
  GATES_DIR,
  HOOK_SETTINGS_FILES,
  MCP_SETTINGS_FILE,
  SANDBOX_POLICY_DIR,
  SANDBOX_WORKDIR,
  type CarriedFile,
  type CarryIn,
  type CarryInEntry,
  type PolicyFile,
} from './schema.ts';

const MAX_FILE_BYTES = 2 * 1024 * 1024;
const MAX_TOTAL_BYTES = 16 * 1024 * 1024;

export interface CaptureOptions {
  /** The project root `intutic connect` ran in (the repository's top level). */
  projectRoot: string;
  commit: string;
  env: NodeJS.ProcessEnv;
  /** The user's home directory (~/.intutic lives there). */
  homeDir: string;
}

async function isRegularFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

async function listFiles(dir: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const files: string[] = [];
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await listFiles(full)));
    else if (await isRegularFile(full)) files.push(full);
  }
  return files;
}

async function readCapped(path: string, budget: { left: number }): Promise<Buffer> {
  const bytes = await readFile(path);
  if (bytes.length > MAX_FILE_BYTES) {
    throw new IntuticError('E_CONFIG_INVALID', `${path} is ${bytes.length} bytes, over the ${MAX_FILE_BYTES}-byte limit for a carried-in file`);
  }
  budget.left -= bytes.length;
  if (budget.left < 0) throw new IntuticError('E_CONFIG_INVALID', `the files to carry in exceed ${MAX_TOTAL_BYTES} bytes in total`);
  return bytes;
}

const isSettings = (path: string): boolean => path === MCP_SETTINGS_FILE || (HOOK_SETTINGS_FILES as readonly string[]).includes(path);

/** Each hook settings file a repetition will have, as applying `files` to the commit makes it (before path rewriting). */
async function settingsAfterCarryIn(projectRoot: string, commit: string, files: readonly CarriedFile[]): Promise<Map<string, string>> {
  const settings = new Map<string, string>();
  for (const path of HOOK_SETTINGS_FILES) {
    const file = files.find((f) => f.path === path);
    const committed = await committedText(projectRoot, commit, path);
    const working = file ? Buffer.from(file.content_b64, 'base64').toString('utf8') : null;
    const text = committed === null ? working : file?.merge && working !== null ? (mergeRegistrations(committed, working) ?? committed) : committed;
    if (text !== null) settings.set(path, text);
  }
  return settings;
}

export async function captureCarryIn(options: CaptureOptions): Promise<CarryIn> {
  const { projectRoot, commit, env, homeDir } = options;
  const budget = { left: MAX_TOTAL_BYTES };
  const projectPaths = [projectRoot];
  const real = await realpath(projectRoot).catch(() => projectRoot);
  if (real !== projectRoot) projectPaths.push(real);

  const candidates = [...(await listFiles(join(projectRoot, GATES_DIR))), ...[...HOOK_SETTINGS_FILES, MCP_SETTINGS_FILE].map((f) => join(projectRoot, f))];
  const files: CarriedFile[] = [];
  for (const full of candidates) {
    if (!(await isRegularFile(full))) continue;
    const path = relative(projectRoot, full).split(sep).join('/');
    const bytes = await readCapped(full, budget);
    const committed = await committedText(projectRoot, commit, path);
    // .mcp.json is the project's own: carried only to add connect's wrapping to the committed copy.
    if (path === MCP_SETTINGS_FILE && (committed === null || Buffer.from(committed, 'utf8').equals(bytes))) continue;
    files.push({
      path,
      content_b64: bytes.toString('base64'),
      mode: (await lstat(full)).mode & 0o777,
      committed: committed !== null || (await commitHasPath(projectRoot, commit, path)),
      ...(committed !== null && !Buffer.from(committed, 'utf8').equals(bytes) && isSettings(path) ? { merge: true } : {}),
    });
  }
  if (files.some((f) => f.path.startsWith(`${GATES_DIR}/`))) assertGoverned(await settingsAfterCarryIn(projectRoot, commit, files));

  const warnings: string[] = [];
  if (!files.some((f) => f.path.startsWith(`${GATES_DIR}/`))) {
    warnings.push(
      `the project has no generated gates (${GATES_DIR}/ is missing: intutic connect never ran in ${projectRoot}), so a harness in the sandbox runs ungoverned`,
    );
  }

  const policy: PolicyFile[] = [];
  const sources = [
    // The same defaults the gates use when the two variables are unset: ~/.intutic/hooks/.
    { role: 'snapshot' as const, envName: ENV.snapshotRules, fallback: join(homeDir, GATES_DIR, SNAPSHOT_FILE) },
    { role: 'bypasses' as const, envName: ENV.approvedBypasses, fallback: join(homeDir, GATES_DIR, BYPASSES_FILE) },
  ];
  for (const { role, envName, fallback } of sources) {
    const configured = env[envName];
    const source = configured && configured.trim() !== '' ? configured : fallback;
    if (!(await isRegularFile(source))) {
      if (role === 'snapshot') {
        const where = configured ? `${envName} points to ${configured}, which is not a file` : `no policy snapshot at ${fallback}`;
        warnings.push(`the gates have no snapshot (${where}), so the destructive-command tier and your rules are missing`);
      } else if (configured) {
        warnings.push(`${envName} points to ${configured}, which is not a file: no approved bypasses are carried in`);
      }
      continue;
    }
    const bytes = await readCapped(source, budget);
    let name = basename(source);
    if (policy.some((p) => p.name === name)) name = `${role}-${name}`;
    policy.push({ role, name, source, content_b64: bytes.toString('base64') });
  }
  return { project_paths: projectPaths, files, policy, warnings };
}

/**
 * What applying `carryIn` will do, computed from the capture alone: a committed file is kept, or
 * (hook settings and .mcp.json connect edited) merged with intutic's registrations.
 */
export function planCarryIn(carryIn: CarryIn): CarryInEntry[] {
  const entries: CarryInEntry[] = carryIn.files.map((file) => {
    const text = decodeText(Buffer.from(file.content_b64, 'base64'));
    const rewritten = text !== null && rewriteProjectPaths(text, carryIn.project_paths, SANDBOX_WORKDIR) !== text;
    return { path: file.path, action: file.merge ? 'merged' : file.committed ? 'kept_committed' : 'carried_in', rewritten };
  });
  for (const p of carryIn.policy) entries.push({ path: `${SANDBOX_POLICY_DIR}/${p.name}`, action: 'carried_in', rewritten: false });
  return entries;
}
