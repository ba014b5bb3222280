// Process entry of the standalone `intutic-mcp-proxy` bin (bundled with everything it needs, so it
// runs in the sandbox on Node alone). stdout is the protocol stream: nothing else may write to it,
// so stray console output is sent to stderr before anything runs.
import { describeError, EXIT } from '@intutic/errors';
import { parseArgs, USAGE } from './args.ts';
import { runMcpProxy } from './proxy.ts';

declare const __INTUTIC_VERSION__: string | undefined;
const VERSION = typeof __INTUTIC_VERSION__ === 'string' ? __INTUTIC_VERSION__ : '0.0.0-dev';

console.log = console.info = console.debug = console.error;

const controller = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => controller.abort(new Error(`interrupted by ${signal}`)));

async function main(): Promise<number> {
  const parsed = parseArgs(process.argv.slice(2));
  if (parsed.kind === 'help') return (process.stdout.write(USAGE), EXIT.ok);
  if (parsed.kind === 'version') return (process.stdout.write(`${VERSION}\n`), EXIT.ok);
  return runMcpProxy(parsed.options, {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    signal: controller.signal,
  });
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const { text, exitCode } = describeError(error);
    process.stderr.write(`intutic-mcp-proxy: ${text}\n`);
    process.exit(exitCode);
  },
);
