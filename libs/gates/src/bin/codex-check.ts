// The codex hook gate: bundled to libs/gates/dist/codex-check.cjs, copied by `intutic connect` into
// <project>/.intutic/hooks/ and run there by Node alone (no node_modules).
import { codex } from '../harness/codex.ts';
import { runHook } from '../hook-main.ts';

runHook(codex);
