// How an `intutic` bundle runs as a process: its context from the process, signals, the exit code.
import { interruptedBy } from '@intutic/errors';
import type { CliContext } from './context.ts';
import { VERSION } from './version.ts';

/**
 * Runs `run` on this process's argv and sets the exit code. The first SIGINT or SIGTERM aborts
 * ctx.signal with an error that carries the signal's exit code (130 or 143), so a command can stop
 * where it is and throw it; a second one means now.
 */
export async function runAsProcess(run: (argv: readonly string[], ctx: CliContext) => Promise<number>): Promise<void> {
  const controller = new AbortController();
  let interrupts = 0;
  const onSignal = (signal: 'SIGINT' | 'SIGTERM'): void => {
    interrupts++;
    const reason = interruptedBy(signal);
    if (interrupts > 1) process.exit(reason.exitCode);
    controller.abort(reason);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const code = await run(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    version: VERSION,
    isTTY: Boolean(process.stdout.isTTY),
    signal: controller.signal,
  });
  process.exitCode = code;
  // Commands that keep no servers open end here; long-running ones (start, worker) resolve only at exit.
  setTimeout(() => process.exit(code), 50).unref();
}
