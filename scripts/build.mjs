// Build the runnable artifacts, by Nx project: `node scripts/build.mjs [project…]` builds the named
// projects' bundles (each project's `build` target calls it with its own name, and Nx caches the
// outputs); with no project it builds them all (`npm ci` through `prepare`, and `npm run build`).
// - host bundles run beside the CLI, with npm dependencies left external (installed beside them);
//   each records the packages it imports in `<its dist>/host-imports.json` for scripts/pack.mjs;
// - standalone bundles run on Node alone, everything bundled in, built-ins only: in the sandbox, and
//   the repetition proxy, which a worker starts so often that loading it must cost little.
import { build } from 'esbuild';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Every bundle, by the Nx project whose `build` target makes it. */
export const BUNDLES = {
  '@intutic/cli': [
    { kind: 'host', in: 'apps/cli/src/main.ts', out: 'apps/cli/dist/intutic.mjs' },
    // `intutic start` alone, the process a worker starts for every repetition's proxy (runner-deps.ts):
    // bundled whole, it is listening in about half the time the full CLI takes to load.
    { kind: 'standalone', in: 'apps/cli/src/proxy-main.ts', out: 'apps/cli/dist/intutic-proxy.mjs' },
  ],
  // The threads that observe events files while a run is scored (libs/runner/src/observe.ts).
  '@intutic/runner': [{ kind: 'host', in: 'libs/runner/src/observe-worker.ts', out: 'libs/runner/dist/observe-worker.mjs' }],
  // `intutic demo` runs it as a child process; it finds examples, image build files and the CLI from where it is installed.
  examples: [{ kind: 'host', in: 'examples/demo/src/main.ts', out: 'examples/demo/dist/demo.mjs' }],
  // The stdio MCP proxy, copied into the sandbox images as `intutic-mcp-proxy` (runs on Node 18+).
  '@intutic/mcp-proxy-app': [{ kind: 'standalone', in: 'apps/mcp-proxy/src/main.ts', out: 'apps/mcp-proxy/dist/intutic-mcp-proxy.mjs' }],
  // The hook gates `intutic connect` copies into <project>/.intutic/hooks/ (names are stable: the
  // harness settings and the chaos runner refer to them). CommonJS so they run as plain `node x.cjs`.
  '@intutic/gates': ['claude-code', 'codex', 'cursor', 'gemini'].map((agent) => ({
    kind: 'standalone',
    in: `libs/gates/src/bin/${agent}-check.ts`,
    out: `libs/gates/dist/${agent}-check.cjs`,
  })),
  // @intutic/gate, the in-process SDK, as one self-contained ES module (types: libs/gate-sdk/index.d.ts).
  '@intutic/gate': [{ kind: 'standalone', in: 'libs/gate-sdk/src/index.ts', out: 'libs/gate-sdk/dist/index.mjs' }],
};

/** Where a host bundle's project records what it imports (scripts/pack.mjs reads them all). */
export const hostImportsFile = (bundle) => join(dirname(bundle.out), 'host-imports.json');

const rootPkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const cliPkg = JSON.parse(readFileSync(join(root, 'apps/cli/package.json'), 'utf8'));
const external = [...Object.keys(rootPkg.dependencies ?? {}), ...Object.keys(rootPkg.devDependencies ?? {})];
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
  define: { __INTUTIC_VERSION__: JSON.stringify(cliPkg.version) },
  legalComments: 'none',
};
/**
 * Test suites build while other suites run the bundles (two files at a time): each output is written
 * whole, to a temporary file renamed over the old one, and only when it changed, so a reader sees the
 * old bundle or the new one, never half of one.
 */
function writeWhole(path, contents) {
  if (existsSync(path) && Buffer.compare(readFileSync(path), contents) === 0) return;
  const partial = `${path}.${process.pid}.partial`;
  writeFileSync(partial, contents);
  renameSync(partial, path);
}

async function bundleWhole(options) {
  const result = await build({ ...options, write: false });
  for (const file of result.outputFiles) writeWhole(file.path, file.contents);
  return result;
}

// Bundled CommonJS dependencies call require(); give ESM bundles one.
const requireShim = "import { createRequire as __intuticCreateRequire } from 'node:module'; const require = __intuticCreateRequire(import.meta.url);";

async function buildHost(bundle) {
  const result = await bundleWhole({
    ...common,
    format: 'esm',
    entryPoints: [join(root, bundle.in)],
    outfile: join(root, bundle.out),
    external,
    banner: { js: requireShim },
    metafile: true,
  });
  const imports = Object.values(result.metafile.outputs).flatMap((output) => output.imports.filter((i) => i.external).map((i) => i.path));
  writeWhole(join(root, hostImportsFile(bundle)), Buffer.from(`${JSON.stringify([...new Set(imports)].sort(), null, 2)}\n`));
}

async function buildStandalone(bundle) {
  const cjs = bundle.out.endsWith('.cjs');
  await bundleWhole({
    ...common,
    format: cjs ? 'cjs' : 'esm',
    entryPoints: [join(root, bundle.in)],
    outfile: join(root, bundle.out),
    banner: { js: cjs ? '#!/usr/bin/env node' : `#!/usr/bin/env node\n${requireShim}` },
  });
}

async function main(projects) {
  const unknown = projects.filter((project) => !BUNDLES[project]);
  if (unknown.length > 0) throw new Error(`no bundles for ${unknown.join(', ')}: the projects that ship one are ${Object.keys(BUNDLES).join(', ')}`);
  for (const project of projects.length > 0 ? projects : Object.keys(BUNDLES)) {
    for (const bundle of BUNDLES[project]) {
      if (!existsSync(join(root, bundle.in))) throw new Error(`${project}: the entry ${bundle.in} is missing (scripts/build.mjs names it)`);
      mkdirSync(dirname(join(root, bundle.out)), { recursive: true });
      await (bundle.kind === 'host' ? buildHost : buildStandalone)(bundle);
    }
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await main(process.argv.slice(2)).catch((error) => {
    process.stderr.write(`build: ${error.message}\n`);
    process.exit(1);
  });
}
