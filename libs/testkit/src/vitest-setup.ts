// Loaded before every test file (vitest.config.ts setupFiles): what a file made with scratchDir is
// removed when the file ends, whether its tests passed or not; so are the containers it started
// (testcontainers runs without its reaper here, see containers.ts), and those of a crashed file. A
// failed test prints the evidence of the repetitions it ran (failure-evidence.ts) first.
import { afterAll, beforeEach } from 'vitest';
import { disableReaper, removeTestContainers } from './containers.ts';
import { failureEvidence } from './failure-evidence.ts';
import { removeScratchDirs } from './scratch.ts';

// Before any test file loads testcontainers: its reaper (Ryuk) would need an image from a registry.
disableReaper();

beforeEach(({ onTestFailed }) => {
  const since = Date.now();
  onTestFailed(() => {
    const evidence = failureEvidence(since);
    if (evidence) process.stderr.write(`\nthe failed test's repetitions:${evidence}\n`);
  });
});

afterAll(() => {
  removeTestContainers();
  removeScratchDirs();
});
