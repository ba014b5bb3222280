// The command tree. Each command lives in its own file under commands/ and follows
// parse -> options -> run(options, deps): this file only wires them and maps errors to exit codes.
import { Command, CommanderError } from 'commander';
import { describeError, EXIT } from '@intutic/errors';
import type { CliContext } from './context.ts';
import { registerChaosCommands } from './commands/chaos.ts';
import { registerExecCommand } from './commands/exec.ts';
import { registerStartCommand } from './commands/start.ts';
import { registerConnectCommand } from './commands/connect.ts';
import { registerPolicyCommands } from './commands/policy.ts';
import { registerMcpProxyCommand } from './commands/mcp-proxy.ts';
import { registerDemoCommand } from './commands/demo.ts';

export function buildProgram(ctx: CliContext, setExit: (code: number) => void): Command {
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
  const sub = { ctx, setExit };
  registerChaosCommands(program, sub);
  registerExecCommand(program, sub);
  registerStartCommand(program, sub);
  registerConnectCommand(program, sub);
  registerPolicyCommands(program, sub);
  registerMcpProxyCommand(program, sub);
  registerDemoCommand(program, sub);
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

export interface Registration {
  ctx: CliContext;
  setExit: (code: number) => void;
}

/** Run the CLI in-process; resolves to the exit code. Never throws. */
export async function runCli(argv: readonly string[], ctx: CliContext): Promise<number> {
  let exitCode: number = EXIT.ok;
  const program = buildProgram(ctx, (code) => {
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
