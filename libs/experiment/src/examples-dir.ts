// Where the shipped example experiments are. The CLI runs as a bundle (apps/cli/dist/intutic.mjs,
// three levels below the repository root) or from source (deeper), so the examples directory is
// found by walking up from the running module to the first `examples/` that holds them.
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** A file every shipped examples directory has: tells ours from another project's examples/. */
const MARKER = 'registry-down.yaml';

export function findExamplesDir(fromFile: string, exists: (path: string) => boolean = existsSync): string | undefined {
  let dir = dirname(fromFile);
  for (;;) {
    const candidate = join(dir, 'examples');
    if (exists(join(candidate, MARKER))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

export function listExampleFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => /\.ya?ml$/.test(name))
    .sort();
}
