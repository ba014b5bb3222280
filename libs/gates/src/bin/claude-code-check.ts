// The claude-code hook gate: bundled to libs/gates/dist/claude-code-check.cjs, copied by `intutic connect` into
// <project>/.intutic/hooks/ and run there by Node alone (no node_modules).
import { claudeCode } from '../harness/claude-code.ts';
import { runHook } from '../hook-main.ts';

runHook(claudeCode);
