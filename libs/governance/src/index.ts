export * from './types.ts';
export { loadPolicy, policyPaths, parseSnapshot, parseBypasses, EMPTY_POLICY, SNAPSHOT_FILE, BYPASSES_FILE, POLICY_FORMAT_VERSION } from './policy-load.ts';
export { decideToolCall, decideEgress } from './decide.ts';
export { hashToolInput, canonicalJson } from './hash.ts';
export { DESTRUCTIVE_RULES, detectDestructiveCommand, type DestructiveHit, type DestructiveRuleId } from './destructive.ts';
export { STARTER_SNAPSHOT, STARTER_BYPASSES } from './starter.ts';
export { commandOf } from './subjects.ts';
export { parseJsonWithLines, JsonSyntaxError } from './json-lines.ts';
