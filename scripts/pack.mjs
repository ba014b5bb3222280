#!/usr/bin/env node
// `npm run pack [-- --out <dir>]`: the `intutic` npm package, one tarball holding everything the CLI
// needs at run time — the bundles (no workspace links), the sandbox images' build files and the
// bundles they copy in, the gates, the shipped examples, the demo and its scripts — and nothing else
// (no node_modules, no sources, no tests). Inside the package every file keeps its path from this
// checkout (apps/cli/dist/intutic.mjs, libs/sandbox/images/, examples/…), so the CLI finds its files
// the same way installed as here. Its dependencies are the npm packages the bundles import, at the
// versions this checkout pins; the registry resolves them on install.
import { execFileSync } from 'node:child_process';
import { builtinModules } from 'node:module';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { BUNDLES, hostImportsFile } from './build.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { out: { type: 'string' } } });
const out = resolve(values.out ?? join(root, 'dist'));
const stage = join(root, 'dist', 'package');

/** What ships, by its path in the checkout: bundles, build files, examples, the demo, the docs. */
const FILES = [
  'apps/cli/bin',
  'apps/cli/dist/intutic.mjs',
  // The repetition proxy's own bundle (apps/cli/src/runner-deps.ts starts it).
  'apps/cli/dist/intutic-proxy.mjs',
  'apps/cli/package.json',
  'apps/mcp-proxy/dist/intutic-mcp-proxy.mjs',
  'libs/gates/dist',
  'libs/gate-sdk/dist',
  'libs/gate-sdk/index.d.ts',
  'libs/gate-sdk/README.md',
  'libs/runner/dist/observe-worker.mjs',
  'libs/sandbox/images',
  'examples/agent-sandbox/Dockerfile',
  'examples/agent-sandbox/Dockerfile.codex',
  'examples/agent-sandbox/Dockerfile.gemini',
  'examples/agent-sandbox/README.md',
  'examples/demo/dist/demo.mjs',
  'examples/demo/README.md',
  'examples/scripts',
  // The pinned agent versions the agent images install, and the engine set-up the demo offers.
  'scripts/setup/agents.sh',
  'scripts/setup/engine.sh',
  'README.md',
];
const say = (line) => process.stderr.write(`${line}\n`);
const fail = (message) => {
  say(`pack: ${message}`);
  process.exit(1);
};

execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { stdio: 'inherit' });

const rootPkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const cliPkg = JSON.parse(readFileSync(join(root, 'apps', 'cli', 'package.json'), 'utf8'));
const pinned = { ...rootPkg.devDependencies, ...rootPkg.dependencies };
// What the host bundles import (scripts/build.mjs records it): `@scope/name/sub` is `@scope/name`.
const hostBundles = Object.values(BUNDLES)
  .flat()
  .filter((bundle) => bundle.kind === 'host');
const imports = hostBundles.flatMap((bundle) => JSON.parse(readFileSync(join(root, hostImportsFile(bundle)), 'utf8')));
const packageOf = (spec) =>
  spec
    .split('/')
    .slice(0, spec.startsWith('@') ? 2 : 1)
    .join('/');
const dependencies = {};
for (const name of [...new Set(imports.filter((spec) => !spec.startsWith('node:') && !builtinModules.includes(packageOf(spec))).map(packageOf))].sort()) {
  if (!pinned[name]) fail(`a bundle imports ${name}, which package.json does not pin`);
  dependencies[name] = pinned[name];
}

rmSync(stage, { recursive: true, force: true });
for (const path of FILES) {
  if (!existsSync(join(root, path))) fail(`${path} is missing: was the build complete?`);
  mkdirSync(dirname(join(stage, path)), { recursive: true });
  cpSync(join(root, path), join(stage, path), { recursive: true });
}
// The shipped examples: the experiments and their marker, not the tests and fixtures beside them.
for (const name of readdirSync(join(root, 'examples'))) {
  if (statSync(join(root, 'examples', name)).isFile()) cpSync(join(root, 'examples', name), join(stage, 'examples', name));
}

const manifest = {
  name: 'intutic',
  version: cliPkg.version,
  description: 'Chaos engineering for AI coding agents: run a real agent in a sandbox with one known fault injected, and score what it did next.',
  license: rootPkg.license,
  keywords: ['chaos-engineering', 'ai-agents', 'claude-code', 'codex', 'mcp', 'sandbox'],
  type: 'module',
  bin: { intutic: 'apps/cli/bin/intutic.mjs', 'intutic-mcp-proxy': 'apps/cli/bin/intutic-mcp-proxy.mjs' },
  engines: { node: rootPkg.engines?.node ?? '>=20.12' },
  files: ['apps', 'libs', 'examples', 'scripts', 'README.md'],
  dependencies,
  // Not installed with the package: the MCP filesystem server version the agent images pin.
  devDependencies: { '@modelcontextprotocol/server-filesystem': pinned['@modelcontextprotocol/server-filesystem'] },
};
writeFileSync(join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);

mkdirSync(out, { recursive: true });
// dist/ holds this checkout's tarball alone: the worker image docker-compose.yml builds installs
// the one it finds there (apps/cli/worker/Dockerfile). A directory given with --out is left as it is.
if (values.out === undefined) for (const old of readdirSync(out).filter((name) => /^intutic-.*\.tgz$/.test(name))) rmSync(join(out, old));
const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', out], { cwd: stage, encoding: 'utf8' }))[0];
const tarball = join(out, packed.filename);
say(
  `${tarball}: ${(statSync(tarball).size / 1024 / 1024).toFixed(2)} MB packed, ${packed.entryCount} files, ${(packed.unpackedSize / 1024 / 1024).toFixed(2)} MB unpacked`,
);
process.stdout.write(`${tarball}\n`);
