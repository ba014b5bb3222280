// Every project runs the suites it has: a `test`, `test-int` or `test-e2e` target exactly where the
// project holds unit, integration or end-to-end test files (vitest finds no file → the target would
// fail; a suite without its target → npm test would never run it). Run by `npm run lint`.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const KINDS = [
  { target: 'test', matches: (name) => name.endsWith('.test.ts') && !name.endsWith('.int.test.ts') && !name.endsWith('.e2e.test.ts') },
  { target: 'test-int', matches: (name) => name.endsWith('.int.test.ts') },
  { target: 'test-e2e', matches: (name) => name.endsWith('.e2e.test.ts') },
];

function filesUnder(dir) {
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  return entries.flatMap((name) => (statSync(join(dir, name)).isDirectory() ? filesUnder(join(dir, name)) : [name]));
}

const projects = ['apps', 'libs'].flatMap((group) => readdirSync(join(root, group)).map((name) => join(group, name))).concat('examples');
const problems = [];
for (const project of projects) {
  const targets = JSON.parse(readFileSync(join(root, project, 'project.json'), 'utf8')).targets ?? {};
  const files = filesUnder(join(root, project, 'test'));
  for (const { target, matches } of KINDS) {
    const has = files.some(matches);
    if (has && !(target in targets)) problems.push(`${project} has ${target} suites but no ${target} target in its project.json`);
    if (!has && target in targets) problems.push(`${project} has a ${target} target but no ${target} suite (vitest would find no file)`);
  }
}
if (problems.length > 0) {
  for (const problem of problems) console.error(`targets: ${problem}`);
  process.exit(1);
}
console.log(`targets: ${projects.length} projects run exactly the suites they hold`);
