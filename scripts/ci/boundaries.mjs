// The layers are checked, not hoped for: this CI step shows that
// 1. every project carries the layer the README's Layout section gives it (project.json tags), and
// 2. an import that breaks a layer fails lint: a contract importing the runner, a lib importing an
//    app, and a relative path into another project are each reported by the module-boundaries rule.
// The code under test is linted from memory (ESLint's lintText); nothing is written into the tree.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const failures = [];

// 1. The README's layers against the project graph's tags.
const graphDir = mkdtempSync(join(tmpdir(), 'intutic-graph-'));
let nodes;
try {
  execFileSync(join(root, 'node_modules/.bin/nx'), ['graph', `--file=${join(graphDir, 'graph.json')}`], { cwd: root, stdio: 'ignore' });
  nodes = Object.values(JSON.parse(readFileSync(join(graphDir, 'graph.json'), 'utf8')).graph.nodes);
} finally {
  rmSync(graphDir, { recursive: true, force: true });
}
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const layout = readme.slice(readme.indexOf('## Layout'), readme.indexOf('\n## ', readme.indexOf('## Layout') + 1));
const readmeLayer = new Map();
for (const line of layout.split('\n')) {
  const match = /^layer:(\w+)\s+(.*)$/.exec(line.trim());
  if (match) for (const root of match[2].split(/\s+/)) readmeLayer.set(root, match[1]);
}
const roots = new Set();
for (const { name, data: project } of nodes) {
  const tag = (project.tags ?? []).find((t) => t.startsWith('layer:'))?.slice('layer:'.length);
  roots.add(project.root);
  const said = readmeLayer.get(project.root);
  if (!tag) failures.push(`${name} (${project.root}) has no layer: tag in its project.json`);
  else if (said !== tag)
    failures.push(`${name} (${project.root}) is tagged layer:${tag}, but the README's Layout section says ${said ? `layer:${said}` : 'nothing'}`);
}
for (const path of readmeLayer.keys()) if (!roots.has(path)) failures.push(`the README's Layout section names ${path}, which is no project`);

// 2. Violations added on purpose must fail lint.
// The code is not on disk, so no TypeScript program holds it: lint it without type information.
const eslint = new ESLint({ cwd: root, overrideConfig: [tseslint.configs.disableTypeChecked] });
const mustFail = [
  {
    file: 'libs/events/src/__violation.ts',
    code: "import { runRepetition } from '@intutic/runner';\nexport const x = runRepetition;\n",
    why: 'a contract importing the orchestrator',
  },
  {
    file: 'libs/scoring/src/__violation.ts',
    code: "import { startProxy } from '@intutic/proxy-app';\nexport const x = startProxy;\n",
    why: 'a lib importing an app',
  },
  {
    file: 'libs/queue/src/__violation.ts',
    code: "import { x as y } from '../../runner/src/index.ts';\nexport const x = y;\n",
    why: 'a relative path into another project',
  },
];
for (const { file, code, why } of mustFail) {
  const [result] = await eslint.lintText(code, { filePath: join(root, file) });
  const reported = (result?.messages ?? []).some((m) => m.ruleId === '@nx/enforce-module-boundaries');
  if (!reported) failures.push(`${why} (${file}) was not reported by @nx/enforce-module-boundaries`);
  else console.log(`boundaries: ${why} fails lint, as it must`);
}

if (failures.length > 0) {
  for (const failure of failures) console.error(`boundaries: ${failure}`);
  process.exit(1);
}
console.log(`boundaries: ${nodes.length} projects carry the README's layers; violations fail lint`);
