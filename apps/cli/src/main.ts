// Process entry point of the `intutic` bin.
import { runCli } from './cli.ts';
import { VERSION } from './version.ts';

const controller = new AbortController();
let interrupts = 0;
const onSignal = (signal: NodeJS.Signals): void => {
  interrupts++;
  if (interrupts > 1) process.exit(130); // a second Ctrl-C means now
  controller.abort(new Error(`interrupted by ${signal}`));
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

const code = await runCli(process.argv.slice(2), {
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
