// The command tree. Each command lives in its own file under commands/ and follows
// parse -> options -> run(options, deps): this file only lists them (program.ts wires the root and
// maps errors to exit codes).
import type { Command } from 'commander';
import type { CliContext } from './context.ts';
import { buildProgramWith, runProgram, type Registration } from './program.ts';
import { registerChaosCommands } from './commands/chaos.ts';
import { registerExecCommand } from './commands/exec.ts';
import { registerStartCommand } from './commands/start.ts';
import { registerConnectCommand } from './commands/connect.ts';
import { registerDisconnectCommand } from './commands/disconnect.ts';
import { registerPolicyCommands } from './commands/policy.ts';
import { registerMcpProxyCommand } from './commands/mcp-proxy.ts';
import { registerDemoCommand } from './commands/demo.ts';

function allCommands(program: Command, sub: Registration): void {
  registerChaosCommands(program, sub);
  registerExecCommand(program, sub);
  registerStartCommand(program, sub);
  registerConnectCommand(program, sub);
  registerDisconnectCommand(program, sub);
  registerPolicyCommands(program, sub);
  registerMcpProxyCommand(program, sub);
  registerDemoCommand(program, sub);
}

export function buildProgram(ctx: CliContext, setExit: (code: number) => void): Command {
  return buildProgramWith(allCommands, ctx, setExit);
}

/** Run the CLI in-process; resolves to the exit code. Never throws. */
export function runCli(argv: readonly string[], ctx: CliContext): Promise<number> {
  return runProgram(allCommands, argv, ctx);
}
