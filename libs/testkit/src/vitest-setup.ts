// Loaded before every test file (vitest.config.ts setupFiles): what a file made with scratchDir is
// removed when the file ends, whether its tests passed or not; so are the containers it started
// (testcontainers runs without its reaper here, see containers.ts), and those of a crashed file.
import { afterAll } from 'vitest';
import { disableReaper, removeTestContainers } from './containers.ts';
import { removeScratchDirs } from './scratch.ts';

// Before any test file loads testcontainers: its reaper (Ryuk) would need an image from a registry.
disableReaper();

afterAll(() => {
  removeTestContainers();
  removeScratchDirs();
});
