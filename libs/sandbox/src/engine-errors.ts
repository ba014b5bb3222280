// How a sandbox's engine trouble is said: "the engine went away" (stopped, restarted) is never
// mistaken for a bad image or command, and a sandbox the engine itself stopped is told apart from one
// whose command exited 137 or 143.
import { IntuticError } from '@intutic/errors';
import type { Engine } from './engine.ts';

/** The engine's socket refused, vanished or hung up: the engine stopped or restarted. */
export function engineGone(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  return ['ECONNREFUSED', 'ENOENT', 'ECONNRESET', 'EPIPE'].includes(code) || /socket hang up|connection (is )?closed/i.test((error as Error).message ?? '');
}

/** An exit by SIGTERM or SIGKILL (143, 137): the command's own, or a stopping engine's doing. */
export const exitedBySignal = (exitCode: number): boolean => exitCode === 137 || exitCode === 143;

/**
 * A stopping engine first stops its containers (SIGTERM, then SIGKILL: exit 143 or 137), then goes
 * away. When a sandbox exits so without being told to, the engine is asked for a moment whether it
 * is still there: if not, the exit was the engine's doing, not the command's, and is said so.
 */
export async function engineStillThere(engine: Engine, exitCode: number): Promise<void> {
  const gone = await engineGoingAway(engine, 5);
  if (gone) throw engineError(engine, `the sandbox was stopped (exit ${exitCode}) as the engine went away`, gone);
}

/** The engine's ping failure if it stops answering within `pings` pings 200 ms apart; null if it stays. */
export async function engineGoingAway(engine: Engine, pings: number): Promise<unknown> {
  for (let i = 0; i < pings; i++) {
    try {
      await engine.docker.ping();
    } catch (error) {
      return error;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return null;
}

/** What went wrong, said so that "the engine went away" is never mistaken for a bad image or command. */
export function engineError(engine: Engine, what: string, error: unknown): IntuticError {
  if (engineGone(error)) {
    return new IntuticError('E_SANDBOX_UNAVAILABLE', `${what}: the container engine at ${engine.endpoint} stopped answering (${(error as Error).message})`, {
      hints: ['the engine was stopped or restarted; once it answers again (docker info), run the experiment again'],
      cause: error,
    });
  }
  return new IntuticError('E_SANDBOX_FAILED', `${what}: ${(error as Error).message}`, { cause: error });
}
