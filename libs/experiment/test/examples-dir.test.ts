// Finding the shipped examples from wherever the CLI runs: the bundle three levels below the
// repository root, or the TypeScript source deeper down.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findExamplesDir, listExampleFiles } from '../src/index.ts';
import { EXAMPLES_DIR, REPO_ROOT } from './helpers.ts';

describe('findExamplesDir', () => {
  it('finds the repository examples from the bundle at apps/cli/dist/intutic.mjs', () => {
    expect(findExamplesDir(join(REPO_ROOT, 'apps/cli/dist/intutic.mjs'))).toBe(EXAMPLES_DIR);
  });

  it('finds them from the command source apps/cli/src/commands/chaos-list.ts', () => {
    expect(findExamplesDir(join(REPO_ROOT, 'apps/cli/src/commands/chaos-list.ts'))).toBe(EXAMPLES_DIR);
  });

  it('skips an examples directory that is not ours (no registry-down.yaml in it)', () => {
    const seen = new Set(['/opt/tool/lib/examples/other.yaml', '/opt/tool/examples/registry-down.yaml']);
    expect(findExamplesDir('/opt/tool/lib/cli/main.mjs', (p) => seen.has(p))).toBe('/opt/tool/examples');
  });

  it('gives undefined when there is none up to the file system root', () => {
    expect(findExamplesDir('/nowhere/at/all.mjs', () => false)).toBeUndefined();
  });

  it('lists the YAML files there, sorted', () => {
    expect(existsSync(EXAMPLES_DIR)).toBe(true);
    const files = listExampleFiles(EXAMPLES_DIR);
    expect(files).toEqual([...files].sort());
    expect(files).toContain('registry-down.yaml');
  });
});
