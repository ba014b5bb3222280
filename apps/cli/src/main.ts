// Process entry point of the `intutic` bin.
import { runCli } from './cli.ts';
import { runAsProcess } from './process-entry.ts';

await runAsProcess(runCli);
