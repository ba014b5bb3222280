// The Gemini CLI hook gate: bundled to libs/gates/dist/gemini-check.cjs, copied by `intutic connect`
// into <project>/.intutic/hooks/ and run there by Node alone (no node_modules).
import { gemini } from '../harness/gemini.ts';
import { runHook } from '../hook-main.ts';

runHook(gemini);
