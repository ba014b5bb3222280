// Three suites: unit (pure, fast), integration (real Redis / container engine / real MCP servers),
// e2e (real agent binaries in the sandbox). `npm test` runs all three in one `vitest run` (after the
// build), so two files run at a time across projects; each suite can run alone.
import { defineConfig } from 'vitest/config';
import { LongestFirst, TestSecondsRecorder } from './libs/testkit/src/sequencer.ts';

// Every file's scratch directories are removed when it ends (libs/testkit/src/vitest-setup.ts).
const shared = { testTimeout: 30_000, hookTimeout: 120_000, setupFiles: ['libs/testkit/src/vitest-setup.ts'] };
// Integration and e2e files run two at a time; each owns its world (scratch dirs, Redis prefix, ports,
// labelled containers). Files that stop something every other file needs run alone, after the rest:
// `--project 'integration*'`. The groups run in order (unit, integration, alone, e2e), so a bare
// `vitest run` runs the suites one kind after the other, as `npm test` does. Unit files run two at a
// time too (vitest's own default on two cores is one).
const alone = ['libs/runner/test/engine-restart.int.test.ts'];
const integration = { ...shared, include: ['{apps,libs}/*/test/**/*.int.test.ts'], testTimeout: 180_000 };

export default defineConfig({
  test: {
    // Within each project the files start longest first (libs/testkit/src/sequencer.ts), so a long one
    // never runs last and alone; INTUTIC_RECORD_TEST_SECONDS=1 records the seconds that order reads.
    sequence: { sequencer: LongestFirst },
    ...(process.env.INTUTIC_RECORD_TEST_SECONDS === '1' ? { reporters: ['default', new TestSecondsRecorder()] } : {}),
    projects: [
      {
        test: {
          ...shared,
          name: 'unit',
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
          include: ['{apps,libs}/*/test/**/*.test.ts', 'examples/test/**/*.test.ts'],
          exclude: ['**/*.int.test.ts', '**/*.e2e.test.ts', '**/node_modules/**'],
        },
      },
      { test: { ...integration, name: 'integration', exclude: [...alone, '**/node_modules/**'], maxWorkers: 2, sequence: { groupOrder: 1 } } },
      { test: { ...integration, name: 'integration-alone', include: alone, fileParallelism: false, sequence: { groupOrder: 2 } } },
      {
        test: {
          ...shared,
          name: 'e2e',
          include: ['{apps,libs,examples}/**/test/**/*.e2e.test.ts'],
          testTimeout: 900_000,
          maxWorkers: 2,
          sequence: { groupOrder: 3 },
        },
      },
    ],
  },
});
