// Process entry point of the repetition proxy's own bundle, apps/cli/dist/intutic-proxy.mjs: a
// program with `intutic start` alone (`intutic-proxy.mjs start …` takes exactly what `intutic start`
// takes). A worker starts one per repetition; bundled whole, with none of the full CLI's other
// commands and dependencies, it is listening in about half the time `intutic start` takes.
import { registerStartCommand } from './commands/start.ts';
import { runAsProcess } from './process-entry.ts';
import { runProgram } from './program.ts';

await runAsProcess((argv, ctx) => runProgram(registerStartCommand, argv, ctx));
