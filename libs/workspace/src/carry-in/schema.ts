// What a run carries into each repetition's worktree, captured once at enqueue so a later change in
// the project (or a worker on another machine) cannot change a queued run. Plain data: it travels in
// the job payload. Contents are base64 so gate scripts of any encoding survive the trip unchanged.
import { z } from 'zod';

/** The worktree inside the sandbox: the project's path in carried-in files is rewritten to it. */
export const SANDBOX_WORKDIR = '/work';
/** Where `intutic connect` puts the gate scripts, relative to the project. */
export const GATES_DIR = '.intutic/hooks';
/** Project-level hook settings, usually not committed: Claude Code (two), Codex, Cursor, Gemini CLI. */
export const HOOK_SETTINGS_FILES = [
  '.claude/settings.json',
  '.claude/settings.local.json',
  '.codex/hooks.json',
  '.cursor/hooks.json',
  '.gemini/settings.json',
] as const;
/** The project's MCP servers, which connect wraps in the MCP proxy: carried in only when committed (merged with the wrapping). */
export const MCP_SETTINGS_FILE = '.mcp.json';
/**
 * Where the sandbox mounts the run's governance files read-only, outside /work and anything the agent
 * owns (as @intutic/sandbox's GOVERNANCE_MOUNT; a runner test keeps them equal): the policy snapshot
 * and approved-bypass list under policy/, and a faulted repetition's plan.
 */
export const SANDBOX_GOVERNANCE_DIR = '/intutic/governance';
export const SANDBOX_POLICY_DIR = `${SANDBOX_GOVERNANCE_DIR}/policy`;

export const carriedFileSchema = z.strictObject({
  /** Relative posix path inside the project and the worktree. */
  path: z.string().min(1),
  content_b64: z.string(),
  /** File mode bits (the executable bit of gate scripts matters). */
  mode: z.number().int().nonnegative(),
  /** The pinned commit already has this path: its committed copy is kept, only its paths rewritten. */
  committed: z.boolean(),
  /**
   * The commit's copy differs from the project's: the repetition gets the commit's copy with intutic's
   * registrations (gate hooks, MCP wrapping) from this one merged in, never the commit's copy alone.
   */
  merge: z.boolean().optional(),
});
export type CarriedFile = z.infer<typeof carriedFileSchema>;

export const policyRoleSchema = z.enum(['snapshot', 'bypasses']);
export type PolicyRole = z.infer<typeof policyRoleSchema>;

export const policyFileSchema = z.strictObject({
  role: policyRoleSchema,
  /** File name under /intutic/governance/policy/ in the sandbox. */
  name: z.string().min(1),
  /** Where it was read from on the host, for the listing. */
  source: z.string(),
  content_b64: z.string(),
});
export type PolicyFile = z.infer<typeof policyFileSchema>;

export const carryInSchema = z.strictObject({
  /** The absolute project paths rewritten to /work (as given and as resolved through symlinks). */
  project_paths: z.array(z.string().min(1)).min(1),
  files: z.array(carriedFileSchema),
  policy: z.array(policyFileSchema),
  warnings: z.array(z.string()),
});
export type CarryIn = z.infer<typeof carryInSchema>;

/** One line of the "carried in and rewritten" listing. */
export interface CarryInEntry {
  /** Path inside the worktree; for a policy file, its absolute path in the sandbox. */
  path: string;
  /** carried_in: copied from the project; kept_committed: the commit's own copy was kept; merged: the commit's copy with intutic's registrations from the project's. */
  action: 'carried_in' | 'kept_committed' | 'merged';
  rewritten: boolean;
}
