#!/usr/bin/env node
// `npm run demo [-- --example registry-down|poisoned-readme] [--careless] [--keep]`: one command that
// runs a real chaos experiment end to end on this machine with no API key — real Claude Code in the
// sandbox, the scripted model standing in for the provider. The work is examples/demo/src/main.ts,
// run through tsx (a dev dependency of this checkout); this launcher only checks that it can run.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 12)) {
  process.stderr.write(`the demo needs Node 20.12 or later; this is ${process.version}\n`);
  process.exit(3);
}
if (!existsSync(join(root, 'node_modules', 'tsx'))) {
  process.stderr.write('the dependencies are not installed: run `npm ci` in the repository first\n');
  process.exit(3);
}

const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'examples', 'demo', 'src', 'main.ts'), ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
// Ctrl-C reaches the whole foreground process group; the demo passes it on to chaos run, which cancels its run.
process.on('SIGINT', () => undefined);
child.on('exit', (code, signal) => process.exit(code ?? (signal === 'SIGINT' ? 130 : 1)));
