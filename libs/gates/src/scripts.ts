// The gate scripts `intutic connect` installs, one per harness: their stable file names (the runner
// and users' settings refer to them) and where the build puts them.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface GateScript {
  harness: 'claude-code' | 'codex' | 'cursor' | 'gemini';
  /** The file name under <project>/.intutic/hooks/. */
  file: string;
}

export const GATE_SCRIPTS: readonly GateScript[] = [
  { harness: 'claude-code', file: 'claude-code-check.cjs' },
  { harness: 'codex', file: 'codex-check.cjs' },
  { harness: 'cursor', file: 'cursor-check.cjs' },
  { harness: 'gemini', file: 'gemini-check.cjs' },
];

/**
 * The built bundle of a gate script (scripts/build.mjs writes libs/gates/dist/). This module runs
 * from its source (tests) or bundled into the CLI at apps/cli/dist/, so both places are looked at;
 * INTUTIC_GATES_DIR overrides them.
 */
export function gateScriptPath(file: string, env: NodeJS.ProcessEnv = process.env): string {
  const candidates = [
    ...(env.INTUTIC_GATES_DIR ? [join(env.INTUTIC_GATES_DIR, file)] : []),
    fileURLToPath(new URL(`../dist/${file}`, import.meta.url)),
    fileURLToPath(new URL(`../../../libs/gates/dist/${file}`, import.meta.url)),
  ];
  return candidates.find((p) => existsSync(p)) ?? candidates[0]!;
}
