// How an `intutic` bundle runs as a process: its context from the process, signals, the exit code.
import { describeError, interruptedBy } from '@intutic/errors';
import type { CliContext } from './context.ts';
import { isStandby, readOrder } from './standby.ts';
import { VERSION } from './version.ts';

const CLOSED_PIPE = new Set(['EPIPE', 'ERR_STREAM_DESTROYED']);

/**
 * A reader that went away (`intutic chaos list | head -1`) closes the pipe under us. What is left to
 * print has nowhere to go and is dropped; the command itself goes on and ends with its own exit code
 * (a run still cleans up after itself). Any other write error is still thrown.
 */
function quietOnClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (!CLOSED_PIPE.has(error.code ?? '')) throw error;
  });
}

/**
 * Runs `run` on this process's argv and sets the exit code. The first SIGINT or SIGTERM aborts
 * ctx.signal with an error that carries the signal's exit code (130 or 143), so a command can stop
 * where it is and throw it; a second one means now. `start --standby` first waits for its order on
 * stdin (standby.ts), and then stops when stdin ends as on SIGTERM.
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
  quietOnClosedPipe(process.stdout);
  quietOnClosedPipe(process.stderr);

  let argv = process.argv.slice(2);
  const standby = isStandby(argv);
  if (standby) {
    const order = await readOrder(process.stdin, controller.signal).catch((error: unknown) => {
      const { text, exitCode } = describeError(error);
      process.stderr.write(text + '\n');
      process.exit(exitCode);
    });
    if (order === null) process.exit(0);
    Object.assign(process.env, order.env);
    // Its worker gone (the pipe ended, or broke): stop as on SIGTERM.
    process.stdin
      .once('end', () => onSignal('SIGTERM'))
      .once('error', () => onSignal('SIGTERM'))
      .resume();
    argv = ['start', ...order.args];
  }

  const code = await run(argv, {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    version: VERSION,
    isTTY: Boolean(process.stdout.isTTY),
    signal: controller.signal,
  });
  process.exitCode = code;
  // A standby's stdin, watched for its end, would keep the process up once its command is over.
  if (standby) process.stdin.destroy();
  // Commands that keep no servers open end here; long-running ones (start, worker) resolve only at exit.
  setTimeout(() => process.exit(code), 50).unref();
}
