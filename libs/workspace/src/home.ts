// Where intutic keeps its own state on the machine (~/.intutic, or INTUTIC_HOME): the Redis data it
// starts, the per-job scratch directories with their worktrees, the cache of remote clones.
import { homedir } from 'node:os';
import { join } from 'node:path';

export function intuticHome(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.INTUTIC_HOME;
  return configured && configured.trim() !== '' ? configured : join(env.HOME && env.HOME.trim() !== '' ? env.HOME : homedir(), '.intutic');
}

/** The user's home directory as the environment names it (tests point HOME elsewhere). */
export function userHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.HOME && env.HOME.trim() !== '' ? env.HOME : homedir();
}
