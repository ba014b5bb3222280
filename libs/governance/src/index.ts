export * from './types.ts';
export {
  loadPolicy,
  policyPaths,
  policyRequired,
  parseSnapshot,
  parseBypasses,
  EMPTY_POLICY,
  SNAPSHOT_FILE,
  BYPASSES_FILE,
  POLICY_FORMAT_VERSION,
  POLICY_REQUIRED_ENV,
} from './policy-load.ts';
export { decideToolCall, decideEgress, diskQuestions } from './decide.ts';
export type { DiskView, FileFacts } from './disk.ts';
export {
  parseIpLiteral,
  parseInetAton,
  ipv6Words,
  parseAddressPattern,
  addressInPattern,
  hostRuleMatches,
  endsInNumber,
  type IpLiteral,
  type AddressPattern,
} from './addresses.ts';
export { hashToolInput, canonicalJson } from './hash.ts';
export { DESTRUCTIVE_RULES, detectDestructiveCommand, detectDestructiveHits, type DestructiveHit, type DestructiveRuleId } from './tier/destructive.ts';
export { commandSegments } from './tier/segments.ts';
export { STARTER_SNAPSHOT, STARTER_BYPASSES } from './starter.ts';
export { commandOf } from './subjects.ts';
export { parseJsonWithLines, JsonSyntaxError } from './json-lines.ts';
export {
  GATE_SCRIPTS_MARKER,
  MCP_PROXY_BIN,
  wrapMcpServer,
  isGateCommand,
  holdsGateCommand,
  hasGateRegistration,
  hooksTurnedOff,
  isWrappedMcpServer,
  unwrapMcpServer,
} from './registrations.ts';
