// The managed gates: the agent images register each harness's gate at that harness's admin level
// (Claude Code's managed settings, Codex's requirements, Gemini CLI's system settings), root-owned and
// read-only to the agent's user, as `/usr/bin/node /opt/intutic/gates/<harness>-check.cjs --managed`.
// Every process of that agent in the container then runs the gate, whatever its name, cwd, user
// settings or environment. A managed gate takes where its plan, policy and events are from the file
// the sandbox's entrypoint writes as root before it drops privileges (MANAGED_ENV_FILE), never from
// the agent's environment. A project-registered gate of the same harness stands down when the managed
// one is registered, so each tool call gets one decision and one event.
import { lstatSync, readFileSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { IntuticError } from '@intutic/errors';
import { ENV_NAMES } from './engine.ts';

/** Written by the sandbox's entrypoint (libs/sandbox/images/entrypoint.sh), root-owned, mode 0444. */
export const MANAGED_ENV_FILE = '/run/intutic/gates.env';
/** Where the -node sandbox image keeps the bundled gates. */
export const MANAGED_GATES_DIR = '/opt/intutic/gates';
/** The argument the managed registrations pass to the gate. */
export const MANAGED_FLAG = '--managed';

/** The gate's settings a managed gate takes from MANAGED_ENV_FILE alone (the runner passes them). */
export const MANAGED_ENV_KEYS = [
  ENV_NAMES.plan,
  ENV_NAMES.events,
  'INTUTIC_SNAPSHOT_RULES',
  'INTUTIC_APPROVED_BYPASSES',
  'INTUTIC_POLICY_REQUIRED',
  'HOME',
] as const;

/** Each harness's admin-level registration in the agent images (examples/agent-sandbox/Dockerfile*). */
export const MANAGED_REGISTRATIONS: Readonly<Record<string, string>> = {
  'claude-code': '/etc/claude-code/managed-settings.json',
  codex: '/etc/codex/requirements.toml',
  gemini: '/etc/gemini-cli/settings.json',
};

/**
 * Environment variables that move a harness's admin-level settings elsewhere: while one is set to
 * another path, the harness may not have loaded the managed gate, so the project gate keeps deciding.
 */
const RELOCATING_ENV: Readonly<Record<string, string>> = { gemini: 'GEMINI_CLI_SYSTEM_SETTINGS_PATH' };

/** The hook command the managed registration of `harness` runs. */
export function managedCommand(harness: string): string {
  return `/usr/bin/node ${MANAGED_GATES_DIR}/${harness}-check.cjs ${MANAGED_FLAG}`;
}

type StatFn = (path: string) => Stats;
type ReadFn = (path: string) => string;

/** A regular file owned by root that neither group nor others may write: the agent's user could not have made it. */
export function rootOwnedFile(path: string, stat: StatFn = lstatSync): boolean {
  try {
    const info = stat(path);
    return info.isFile() && info.uid === 0 && (info.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/**
 * Parse MANAGED_ENV_FILE: `NAME=value` lines, one per setting the entrypoint had. An unknown name or
 * a line of another shape is an error: the gate then refuses the call rather than guess.
 */
export function parseManagedEnv(text: string, file = MANAGED_ENV_FILE): Record<string, string> {
  const values: Record<string, string> = {};
  const known = new Set<string>(MANAGED_ENV_KEYS);
  text.split('\n').forEach((line, i) => {
    if (line === '') return;
    const eq = line.indexOf('=');
    const name = eq > 0 ? line.slice(0, eq) : '';
    if (!known.has(name))
      throw new IntuticError('E_CONFIG_INVALID', `${file}:${i + 1}: not a gate setting (expected NAME=value, NAME one of ${[...known].join(', ')})`);
    values[name] = line.slice(eq + 1);
  });
  return values;
}

/**
 * The environment a managed gate decides with: the agent's, with every gate setting taken out and
 * replaced by what MANAGED_ENV_FILE says. Without the file (an image run outside the product's
 * sandbox) the gate decides with the tier alone: no plan, no policy, no events. A file that is there
 * but not root's is refused: the agent's user could have written it.
 */
export function managedEnv(env: NodeJS.ProcessEnv, stat: StatFn = lstatSync, read: ReadFn = (p) => readFileSync(p, 'utf8')): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  for (const key of MANAGED_ENV_KEYS) if (key !== 'HOME') delete out[key];
  let present = true;
  try {
    stat(MANAGED_ENV_FILE);
  } catch {
    present = false;
  }
  if (!present) return out;
  if (!rootOwnedFile(MANAGED_ENV_FILE, stat)) {
    throw new IntuticError('E_CONFIG_INVALID', `${MANAGED_ENV_FILE} is not a root-owned file only root may write; the managed gate does not trust it`);
  }
  return { ...out, ...parseManagedEnv(read(MANAGED_ENV_FILE)), INTUTIC_SANDBOX: '1' };
}

/**
 * Whether a project-registered gate of `harness` stands down: the sandbox wrote MANAGED_ENV_FILE and
 * the image registers this harness's managed gate (a root-owned registration naming it), and nothing
 * in the environment moved the harness's admin settings elsewhere.
 */
export function managedGateActive(harness: string, env: NodeJS.ProcessEnv, stat: StatFn = lstatSync, read: ReadFn = (p) => readFileSync(p, 'utf8')): boolean {
  const registration = MANAGED_REGISTRATIONS[harness];
  if (!registration || !rootOwnedFile(MANAGED_ENV_FILE, stat) || !rootOwnedFile(registration, stat)) return false;
  const relocating = RELOCATING_ENV[harness];
  if (relocating && env[relocating] && env[relocating] !== registration) return false;
  if (harness === 'gemini' && geminiHooksTurnedOff(env, read)) return false;
  try {
    return read(registration).includes(`${MANAGED_GATES_DIR}/${harness}-check.cjs ${MANAGED_FLAG}`);
  } catch {
    return false;
  }
}

/**
 * Gemini CLI merges `hooksConfig.disabled` across its settings files (a union: the system settings
 * cannot take a name out again), so a user's or the project's settings can switch the managed gate
 * off by its name or command. When any settings file this process may read says anything of the kind
 * (a disabled list, hooks turned off, or a file that is not a JSON object), the project's gate keeps
 * deciding: a call decided twice is better than a call not decided at all.
 */
export function geminiHooksTurnedOff(env: NodeJS.ProcessEnv, read: ReadFn = (p) => readFileSync(p, 'utf8')): boolean {
  const homes = [env.GEMINI_CLI_HOME, env.HOME].filter((h): h is string => Boolean(h));
  const files = [...homes.flatMap((h) => [join(h, '.gemini', 'settings.json'), join(h, 'settings.json')]), join(process.cwd(), '.gemini', 'settings.json')];
  return files.some((file) => {
    let text: string;
    try {
      text = read(file);
    } catch {
      return false;
    }
    let settings: unknown;
    try {
      settings = JSON.parse(text);
    } catch {
      return true;
    }
    if (typeof settings !== 'object' || settings === null || Array.isArray(settings)) return true;
    const hooksConfig = (settings as Record<string, unknown>).hooksConfig;
    if (hooksConfig === undefined) return false;
    if (typeof hooksConfig !== 'object' || hooksConfig === null) return true;
    const { disabled, enabled } = hooksConfig as Record<string, unknown>;
    return enabled === false || (disabled !== undefined && !(Array.isArray(disabled) && disabled.length === 0));
  });
}
