// Build the runnable artifacts (run by `npm ci` through `prepare`, and by `npm run build`):
// - the `intutic` CLI bundle, with npm dependencies left external (they are installed beside it);
// - self-contained bundles that run in the sandbox on Node alone, without node_modules.
import { build } from 'esbuild';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const rootPkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const cliPkg = JSON.parse(readFileSync(join(root, 'apps/cli/package.json'), 'utf8'));
const external = [...Object.keys(rootPkg.dependencies ?? {}), ...Object.keys(rootPkg.devDependencies ?? {})];
const define = { __INTUTIC_VERSION__: JSON.stringify(cliPkg.version) };
// Bundled CommonJS dependencies call require(); give ESM bundles one.
const requireShim = "import { createRequire as __intuticCreateRequire } from 'node:module'; const require = __intuticCreateRequire(import.meta.url);";

/** Entries that run in the sandbox: everything bundled in, Node built-ins only. */
export const standalone = [
  // The stdio MCP proxy, copied into the sandbox images as `intutic-mcp-proxy` (runs on Node 18+).
  { in: 'apps/mcp-proxy/src/main.ts', out: 'apps/mcp-proxy/dist/intutic-mcp-proxy.mjs' },
  // The hook gates `intutic connect` copies into <project>/.intutic/hooks/ (names are stable: the
  // harness settings and the chaos runner refer to them). CommonJS so they run as plain `node x.cjs`.
  { in: 'libs/gates/src/bin/claude-code-check.ts', out: 'libs/gates/dist/claude-code-check.cjs' },
  { in: 'libs/gates/src/bin/codex-check.ts', out: 'libs/gates/dist/codex-check.cjs' },
  { in: 'libs/gates/src/bin/cursor-check.ts', out: 'libs/gates/dist/cursor-check.cjs' },
  // @intutic/gate, the in-process SDK, as one self-contained ES module (types: libs/gate-sdk/index.d.ts).
  { in: 'libs/gate-sdk/src/index.ts', out: 'libs/gate-sdk/dist/index.mjs' },
];

const common = { bundle: true, platform: 'node', target: 'node20', format: 'esm', logLevel: 'warning', define, legalComments: 'none' };

// The npm packages the host bundles import, by bundle: scripts/pack.mjs makes them the package's dependencies.
const hostImports = {};
const host = async (entry, outfile) => {
  const result = await build({ ...common, entryPoints: [join(root, entry)], outfile: join(root, outfile), external, banner: { js: requireShim }, metafile: true });
  hostImports[outfile] = [...new Set(Object.values(result.metafile.outputs).flatMap((o) => o.imports.filter((i) => i.external).map((i) => i.path)))].sort();
};

await host('apps/cli/src/main.ts', 'apps/cli/dist/intutic.mjs');

// The threads that observe events files while a run is scored (libs/runner/src/observe.ts). They
// run on the host beside the CLI, so npm dependencies stay external as in the CLI bundle.
await host('libs/runner/src/observe-worker.ts', 'libs/runner/dist/observe-worker.mjs');

// `intutic demo` (and `npm run demo`): the demo's script, run by the CLI as a child process. It
// resolves the examples, images' build files and the CLI from the directory it is installed in.
await host('examples/demo/src/main.ts', 'examples/demo/dist/demo.mjs');
mkdirSync(join(root, 'dist'), { recursive: true });
writeFileSync(join(root, 'dist', 'host-imports.json'), `${JSON.stringify(hostImports, null, 2)}\n`);

for (const entry of standalone) {
  if (!existsSync(join(root, entry.in))) continue;
  await build({
    ...common,
    entryPoints: [join(root, entry.in)],
    outfile: join(root, entry.out),
    format: entry.out.endsWith('.cjs') ? 'cjs' : 'esm',
    banner: entry.out.endsWith('.cjs') ? { js: '#!/usr/bin/env node' } : { js: `#!/usr/bin/env node\n${requireShim}` },
  });
}
