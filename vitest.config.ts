// Three suites: unit (pure, fast), integration (real Redis / container engine / real MCP servers),
// e2e (real agent binaries in the sandbox). `npm test` runs all three; each can run alone.
import { defineConfig } from 'vitest/config';

// Every file's scratch directories are removed when it ends (libs/testkit/src/vitest-setup.ts).
const shared = { testTimeout: 30_000, hookTimeout: 120_000, setupFiles: ['libs/testkit/src/vitest-setup.ts'] };

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          ...shared,
          name: 'unit',
          include: ['{apps,libs}/*/test/**/*.test.ts'],
          exclude: ['**/*.int.test.ts', '**/*.e2e.test.ts', '**/node_modules/**'],
        },
      },
      { test: { ...shared, name: 'integration', include: ['{apps,libs}/*/test/**/*.int.test.ts'], testTimeout: 180_000, fileParallelism: false } },
      { test: { ...shared, name: 'e2e', include: ['{apps,libs,examples}/**/test/**/*.e2e.test.ts'], testTimeout: 900_000, fileParallelism: false } },
    ],
  },
});
