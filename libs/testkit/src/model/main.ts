// Run the scripted model as a process (a demo, a container, a manual try):
//   npx tsx libs/testkit/src/model/main.ts --script FILE [--host H] [--port P]
// Prints `scripted model listening on <url>` once it serves, and stops on SIGINT/SIGTERM.
import { parseArgs } from 'node:util';
import { loadScript } from './script.ts';
import { startScriptedModel } from './server.ts';

const { values } = parseArgs({
  options: { script: { type: 'string' }, host: { type: 'string', default: '127.0.0.1' }, port: { type: 'string', default: '0' } },
});
if (!values.script) {
  process.stderr.write('usage: main.ts --script FILE [--host H] [--port P]\n');
  process.exit(64);
}
const model = await startScriptedModel({ script: loadScript(values.script), host: values.host, port: Number(values.port) });
process.stdout.write(`scripted model listening on ${model.url}\n`);
const stop = (): void => void model.close().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
