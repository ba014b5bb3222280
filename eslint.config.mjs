// Lint for every project (`nx run-many -t lint`): type-aware TypeScript rules, and the layers of the
// README's Layout section enforced by Nx's module-boundaries rule. Formatting is Prettier's alone
// (the lint target runs `prettier --check`), so no rule here is about layout.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import js from '@eslint/js';
import { readCachedProjectGraph } from '@nx/devkit';
import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

/**
 * Which layer may import which (tags in each project.json). A layer reaches only down:
 * contracts ← pure core ← edges ← orchestrator ← app; the injectors (proxy, MCP proxy, gates) sit
 * on the core beside the edges. testkit is for tests (and the demo, an app, which drives the scripted model).
 */
const layers = [
  { sourceTag: 'layer:contract', onlyDependOnLibsWithTags: ['layer:contract'] },
  { sourceTag: 'layer:core', onlyDependOnLibsWithTags: ['layer:contract', 'layer:core'] },
  { sourceTag: 'layer:edge', onlyDependOnLibsWithTags: ['layer:contract', 'layer:core', 'layer:edge'] },
  { sourceTag: 'layer:injector', onlyDependOnLibsWithTags: ['layer:contract', 'layer:core', 'layer:injector'] },
  { sourceTag: 'layer:orchestrator', onlyDependOnLibsWithTags: ['layer:contract', 'layer:core', 'layer:edge'] },
  { sourceTag: 'layer:app', onlyDependOnLibsWithTags: ['*'] },
  { sourceTag: 'layer:testkit', onlyDependOnLibsWithTags: ['layer:contract'] },
  // A lib never reaches into an app.
  { sourceTag: 'type:lib', notDependOnLibsWithTags: ['type:app'] },
];

/** Tests may also use the testkit, and run what they test where it runs (the sandbox); a lib's tests still never import an app. */
const testLayers = [
  ...layers.map((rule) =>
    rule.onlyDependOnLibsWithTags && !rule.onlyDependOnLibsWithTags.includes('*')
      ? { ...rule, onlyDependOnLibsWithTags: [...rule.onlyDependOnLibsWithTags, 'layer:testkit', 'layer:edge'] }
      : rule,
  ),
];

// The boundaries rule reads Nx's cached project graph and, without one, skips itself with only a
// warning. A lint that cannot check the layers must not pass them: compute the graph when it is missing
// (a fresh clone). `npm run lint` and the lint targets refresh it anyway; a bare `npx eslint` relies on this.
try {
  readCachedProjectGraph();
} catch {
  execFileSync(process.execPath, [join(import.meta.dirname, 'node_modules', '.bin', 'nx'), 'show', 'projects'], { cwd: import.meta.dirname, stdio: 'ignore' });
}

const boundaries = (depConstraints) => ['error', { enforceBuildableLibDependency: false, allow: [], depConstraints, checkDynamicDependenciesExceptions: [] }];

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '.nx/**', 'libs/gates/python/**', '**/*.d.ts', 'scripts/**', '**/*.mjs', '**/*.cjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { '@nx': nx },
    rules: {
      '@nx/enforce-module-boundaries': boundaries(layers),
      // Deps are plain objects of functions typed as methods (`deps.clock.now`); none uses `this`.
      '@typescript-eslint/unbound-method': 'off',
      // Messages stringify values the schema already checked to be scalars, or YAML keys as YAML renders them.
      '@typescript-eslint/no-base-to-string': 'off',
      // Sanitizers match control characters on purpose (untrusted output shown to a terminal or a report).
      'no-control-regex': 'off',
      // `_`-prefixed names say "unused on purpose" (a parameter a signature requires).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    files: ['**/src/**/*.ts'],
    rules: {
      // A project's `testing` entry (its test fixtures, for the tests of projects built on it) is for tests only.
      'no-restricted-imports': ['error', { patterns: [{ group: ['@intutic/*/testing'], message: 'test fixtures are for tests, not for shipped code' }] }],
      // A file that passes ~300 lines, or a function that passes ~80, is split; an exception says why where it is.
      'max-lines': ['error', { max: 300, skipBlankLines: true, skipComments: true }],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    files: ['**/test/**/*.ts', '**/*.test.ts', 'vitest.config.ts'],
    rules: {
      '@nx/enforce-module-boundaries': boundaries(testLayers),
      // Tests read parsed JSON (reports, events, wire bodies) and assert on it: the assertion is the check.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // Fakes implement async interfaces without awaiting anything.
      '@typescript-eslint/require-await': 'off',
      // Parsed wire bodies and reports are poked at field by field.
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  prettier,
);
