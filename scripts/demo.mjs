#!/usr/bin/env node
// `npm run demo [-- --example registry-down|poisoned-readme] [--careless] [--keep]`: `intutic demo`
// from this checkout — one command that runs a real chaos experiment end to end on this machine with
// no API key: real Claude Code in the sandbox, the scripted model standing in for the provider. The
// CLI and the demo's script are the bundles `npm ci` (prepare) or `npm run build` makes.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 12)) {
  process.stderr.write(`the demo needs Node 20.12 or later; this is ${process.version}\n`);
  process.exit(3);
}
if (!existsSync(join(root, 'node_modules', 'esbuild'))) {
  process.stderr.write('the dependencies are not installed: run `npm ci` in the repository first\n');
  process.exit(3);
}
if (!existsSync(join(root, 'apps', 'cli', 'dist', 'intutic.mjs')) || !existsSync(join(root, 'examples', 'demo', 'dist', 'demo.mjs'))) {
  process.stderr.write('building the intutic CLI (npm run build)…\n');
  if (spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { stdio: 'inherit' }).status !== 0) process.exit(3);
}

const child = spawn(process.execPath, [join(root, 'apps', 'cli', 'bin', 'intutic.mjs'), 'demo', ...process.argv.slice(2)], { stdio: 'inherit' });
// Ctrl-C reaches the whole foreground process group; the demo passes it on to chaos run, which cancels its run.
process.on('SIGINT', () => undefined);
child.on('exit', (code, signal) => process.exit(code ?? (signal === 'SIGINT' ? 130 : 1)));
