// The cursor hook gate: bundled to libs/gates/dist/cursor-check.cjs, copied by `intutic connect` into
// <project>/.intutic/hooks/ and run there by Node alone (no node_modules).
import { cursor } from '../harness/cursor.ts';
import { runHook } from '../hook-main.ts';

runHook(cursor);
