// JSON-RPC messages as the relay sees them: a parsed line classified just enough to route it, plus
// the few messages the proxy writes itself. Types and the wire encoding come from the MCP SDK, so a
// proxy-made answer is shaped exactly like one an SDK server would send.
import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { ErrorCode, McpError, type CallToolResult, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';

export type Classified =
  | { kind: 'request'; id: RequestId; method: string; params: unknown; raw: Record<string, unknown> }
  | { kind: 'notification'; method: string; params: unknown; raw: Record<string, unknown> }
  | { kind: 'response'; id: RequestId; result?: unknown; error?: unknown; raw: Record<string, unknown> }
  | { kind: 'other' };

const isId = (value: unknown): value is RequestId => typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));

/** Classify one parsed value; anything that is not a single JSON-RPC object is `other` (relayed as is). */
export function classify(value: unknown): Classified {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { kind: 'other' };
  const raw = value as Record<string, unknown>;
  if (typeof raw.method === 'string') {
    if (isId(raw.id)) return { kind: 'request', id: raw.id, method: raw.method, params: raw.params, raw };
    if (!('id' in raw)) return { kind: 'notification', method: raw.method, params: raw.params, raw };
    return { kind: 'other' };
  }
  if (isId(raw.id) && ('result' in raw || 'error' in raw)) return { kind: 'response', id: raw.id, result: raw.result, error: raw.error, raw };
  return { kind: 'other' };
}

/** Parse a line, or undefined when it is not JSON at all. */
export function parseLine(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

/** A key for a request id that keeps 1 and "1" apart. */
export const idKey = (id: RequestId): string => (typeof id === 'number' ? `n${id}` : `s${id}`);

export function encode(message: JSONRPCMessage | Record<string, unknown>): string {
  return serializeMessage(message as JSONRPCMessage);
}

export function resultMessage(id: RequestId, result: CallToolResult | Record<string, unknown>): string {
  return encode({ jsonrpc: '2.0', id, result: result as Record<string, unknown> });
}

export const toolListChangedNotification = (): string => encode({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });

/** A failed tool call as MCP reports it: a result with isError, the reason in text. */
export function toolErrorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/**
 * What the SDK's McpServer answers for a tool it does not have: a CallToolResult with isError and
 * the McpError text, not a JSON-RPC error (the SDK wraps it so the model can read it).
 */
export function unknownToolText(name: string): string {
  return new McpError(ErrorCode.InvalidParams, `Tool ${name} not found`).message;
}
