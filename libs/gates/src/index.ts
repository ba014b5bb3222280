export * from './engine.ts';
export { applyFaults, type FaultCall, type FaultOutcome } from './faults.ts';
export { emptyState, updateState, type GateState, type HoldRecord } from './state.ts';
export { withFileLock } from './lock.ts';
export { eventLine, MAX_LINE_BYTES } from './event-lines.ts';
export { claudeCode, preToolUseAnswer } from './harness/claude-code.ts';
export { codex } from './harness/codex.ts';
export { cursor } from './harness/cursor.ts';
export { responseOk, type HarnessAdapter, type HookAnswer } from './harness/types.ts';
export { GATE_SCRIPTS, gateScriptPath, type GateScript } from './scripts.ts';
export {
  planConnect,
  applyConnect,
  renderConnectDiff,
  CLAUDE_EVENTS,
  CODEX_EVENTS,
  CURSOR_EVENTS,
  type ConnectPlan,
  type FileChange,
} from './connect/connect.ts';
export { wrapMcpServers } from './connect/registrations.ts';
export { MCP_PROXY_BIN } from '@intutic/governance';
export { nextUndoRecord, readUndoRecord, writeUndoRecord, UNDO_RECORD, type UndoRecord } from './connect/undo-record.ts';
export { applyDisconnect, planDisconnect, type DisconnectPlan } from './connect/disconnect.ts';
export { unifiedDiff } from './connect/diff.ts';
