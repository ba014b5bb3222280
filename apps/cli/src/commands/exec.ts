// `intutic exec --sandbox [--image I] [--env NAME…] [--proxy host:port] -- cmd…`: run one command in
// the container sandbox with the current directory at /work, stream its output live and exit with its
// code. Only sandboxed execution exists; the container is removed afterwards, also on Ctrl-C.
import { randomBytes } from 'node:crypto';
import type { Command } from 'commander';
import { EXIT, IntuticError } from '@intutic/errors';
import { checkEngine, ensureSandboxImage, runInSandbox, sandboxImageTag, sandboxVariantOf, withBuildProgress } from '@intutic/sandbox';
import type { Registration } from '../program.ts';
import { imageBuildProgress, type CliContext } from '../context.ts';

export interface ExecOptions {
  image: string;
  envNames: string[];
  proxy?: { host: string; port: number };
  command: string;
  /** Image builds print every line instead of progress. */
  verbose?: boolean;
}

interface RawExecOptions {
  sandbox?: boolean;
  image?: string;
  env?: string[];
  proxy?: string;
  verbose?: boolean;
}

/** One argument is a shell command line (`-- 'npm test && echo ok'`); several are quoted word by word. */
export function shellCommand(argv: readonly string[]): string {
  if (argv.length === 1) return argv[0]!;
  return argv.map((arg) => (/^[A-Za-z0-9_\-./=:,@%+]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`)).join(' ');
}

export function parseExecOptions(argv: readonly string[], raw: RawExecOptions, version: string): ExecOptions {
  if (!raw.sandbox) {
    throw new IntuticError('E_USAGE', 'only sandboxed execution is supported: add --sandbox (intutic exec --sandbox -- <command>)', {
      hints: ['intutic never runs an agent or command directly on this machine'],
    });
  }
  if (argv.length === 0) throw new IntuticError('E_USAGE', 'no command given: intutic exec --sandbox -- <command…>');
  let proxy: ExecOptions['proxy'];
  if (raw.proxy) {
    const match = /^(.+):(\d{1,5})$/.exec(raw.proxy);
    const port = Number(match?.[2]);
    if (!match || port < 1 || port > 65535) throw new IntuticError('E_USAGE', `--proxy must be host:port, got ${JSON.stringify(raw.proxy)}`);
    proxy = { host: match[1]!, port };
  }
  return {
    image: raw.image ?? sandboxImageTag(version, 'base'),
    envNames: raw.env ?? [],
    ...(proxy ? { proxy } : {}),
    command: shellCommand(argv),
    ...(raw.verbose ? { verbose: true } : {}),
  };
}

export async function runExec(options: ExecOptions, ctx: CliContext): Promise<number> {
  const engine = await checkEngine({ env: ctx.env });
  const variant = sandboxVariantOf(options.image, ctx.version);
  if (variant) {
    await withBuildProgress(imageBuildProgress(ctx, options.verbose), (onProgress) =>
      ensureSandboxImage(engine, { version: ctx.version, variant, env: ctx.env, onProgress }),
    );
  }
  if (ctx.signal.aborted) return EXIT.interrupted;
  const result = await runInSandbox(engine, {
    image: options.image,
    command: options.command,
    workspace: ctx.cwd,
    envNames: options.envNames,
    env: ctx.env,
    ...(options.proxy ? { proxy: options.proxy } : {}),
    signal: ctx.signal,
    name: `intutic-exec-${process.pid}-${randomBytes(3).toString('hex')}`,
    labels: { 'dev.intutic.exec': '1' },
    onStdout: (chunk) => ctx.stdout.write(chunk),
    onStderr: (chunk) => ctx.stderr.write(chunk),
  });
  for (const name of result.missingEnv ?? []) ctx.stderr.write(`warning: ${name} is not set in this environment, so it was not passed into the sandbox\n`);
  if (result.aborted) return EXIT.interrupted;
  if (result.error) ctx.stderr.write(`error: ${result.error}\n`);
  return result.exitCode;
}

export function registerExecCommand(program: Command, reg: Registration): void {
  program
    .command('exec')
    .description('run a command in the container sandbox with the current directory at /work (only sandboxed execution is supported)')
    .argument('<command...>', 'the command; one argument runs as a shell command line, several as words (put them after --)')
    .option('--sandbox', 'run in the container sandbox (required)')
    .option('--image <image>', `sandbox image (default: intutic/sandbox:${reg.ctx.version}, built on first use; -node adds Node.js)`)
    .option(
      '--env <name>',
      'pass this environment variable by name; its value is taken from your environment (repeatable)',
      (name: string, names: string[] | undefined) => [...(names ?? []), name],
    )
    .option('--proxy <host:port>', 'the one address the sandbox may reach (default: no network at all)')
    .option('--verbose', 'print every line of an image build (default: progress, the full log to a file)')
    .action(async (argv: string[], raw: RawExecOptions) => {
      reg.setExit(await runExec(parseExecOptions(argv, raw, reg.ctx.version), reg.ctx));
    });
}
