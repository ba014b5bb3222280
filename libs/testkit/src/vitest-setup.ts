// Loaded before every test file (vitest.config.ts setupFiles): what a file made with scratchDir is
// removed when the file ends, whether its tests passed or not.
import { afterAll } from 'vitest';
import { removeScratchDirs } from './scratch.ts';

afterAll(() => removeScratchDirs());
