// What every `intutic` program shares, whichever commands it holds: the root's help, version and
// output, --version and --help on every subcommand, and the mapping of errors to exit codes. The full
// CLI (cli.ts) and the repetition proxy's own bundle (proxy-main.ts) are both built from it.
import { Command, CommanderError } from 'commander';
import { describeError, EXIT } from '@intutic/errors';
import type { CliContext } from './context.ts';

export interface Registration {
  ctx: CliContext;
  setExit: (code: number) => void;
}

/** Adds a program's commands to its root. */
export type Commands = (program: Command, reg: Registration) => void;

export function buildProgramWith(commands: Commands, ctx: CliContext, setExit: (code: number) => void): Command {
  const program = new Command('intutic')
    .description('Chaos engineering for AI coding agents: run your agent with a known fault injected, check what it did next, score it.')
    .version(ctx.version, '-v, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .showSuggestionAfterError(true)
    .configureOutput({
      writeOut: (s) => ctx.stdout.write(s),
      writeErr: (s) => ctx.stderr.write(s),
    });
  program.exitOverride();
  commands(program, { ctx, setExit });
  // --version and --help on every subcommand, not only the root.
  const visit = (cmd: Command): void => {
    for (const child of cmd.commands) {
      child.exitOverride();
      child.configureOutput({ writeOut: (s) => ctx.stdout.write(s), writeErr: (s) => ctx.stderr.write(s) });
      if (!child.options.some((o) => o.long === '--version')) child.version(ctx.version, '-v, --version', 'print the version');
      visit(child);
    }
  };
  visit(program);
  return program;
}

/** Run a program of these commands in-process; resolves to the exit code. Never throws. */
export async function runProgram(commands: Commands, argv: readonly string[], ctx: CliContext): Promise<number> {
  let exitCode: number = EXIT.ok;
  const program = buildProgramWith(commands, ctx, (code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return EXIT.ok;
      // Commander has already printed its message (unknown option, missing argument…).
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    const { text, exitCode: code } = describeError(error);
    ctx.stderr.write(text + '\n');
    return code;
  }
}
