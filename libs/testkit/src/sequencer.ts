// The order test files start in, longest first. Integration and e2e files run two at a time on a
// machine whose two cores they keep busy, so a suite's time is its files' total over two plus the
// tail: the files still running when the others are done. Vitest's own order on a fresh clone (no
// cache of earlier runs) is the largest file first, which put the 9-minute demo suite (93 lines)
// last, alone. Here every file starts in the order of the seconds it took in a recorded run
// (test-seconds.json beside this file; `npm run test:seconds` records them again), so the long files
// overlap the short ones and the tail is short. A file with no record counts as a middling one.
import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import type { Reporter, TestModule } from 'vitest/node';

const TEST_SECONDS_FILE = new URL('./test-seconds.json', import.meta.url);
/** Seconds assumed for a file the record does not know yet (a new file): about the median. */
const UNKNOWN_SECONDS = 20;

function recorded(): Record<string, number> {
  try {
    return JSON.parse(readFileSync(TEST_SECONDS_FILE, 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

/** What the order needs of a test file: its path and its project. */
export interface SequencedFile {
  moduleId: string;
  project: { name: string };
}

/**
 * Vitest's order (`base`) with each project's files longest first by their recorded seconds (paths
 * relative to `root`); the projects keep their order, and files of equal seconds keep vitest's.
 */
export function longestFirst<T extends SequencedFile>(base: readonly T[], seconds: Record<string, number>, root: string): T[] {
  const rank = new Map(base.map((file, i) => [file, i]));
  const secondsOf = (file: T) => seconds[relative(root, file.moduleId)] ?? UNKNOWN_SECONDS;
  // Vitest's own order already groups the files (group order, then project): within a project, longest first.
  const sameProject = (a: T, b: T) => a.project.name === b.project.name;
  return [...base].sort((a, b) => (sameProject(a, b) ? secondsOf(b) - secondsOf(a) : 0) || rank.get(a)! - rank.get(b)!);
}

export class LongestFirst extends BaseSequencer {
  private readonly seconds = recorded();

  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return longestFirst(await super.sort(files), this.seconds, this.ctx.config.root);
  }
}

/**
 * Records each file's seconds (importing it, its hooks and its tests) into test-seconds.json, merged
 * with what is there: vitest.config.ts adds it when INTUTIC_RECORD_TEST_SECONDS=1.
 */
export class TestSecondsRecorder implements Reporter {
  private root = process.cwd();

  onInit(ctx: { config: { root: string } }): void {
    this.root = ctx.config.root;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const seconds = recorded();
    for (const module of modules) {
      const d = module.diagnostic();
      seconds[relative(this.root, module.moduleId)] = Math.max(1, Math.round((d.collectDuration + d.duration) / 1000));
    }
    const sorted = Object.fromEntries(Object.entries(seconds).sort(([a], [b]) => a.localeCompare(b)));
    writeFileSync(TEST_SECONDS_FILE, `${JSON.stringify(sorted, null, 2)}\n`);
  }
}
