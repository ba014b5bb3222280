// The tool results the faults put in front of the agent: tool.error's failure, tool.stale_data's
// fixed result and inject.tool_result's payload inside the real one. Pure functions over SDK types.
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { toolErrorResult } from './messages.ts';

/** Every injected error message carries the repetition's canary (as the gates write it), so failure_surfaced can find it. */
export const withCanary = (message: string, canary: string): string => `${message} [${canary}]`;

export function faultErrorResult(message: string, canary: string): CallToolResult {
  return toolErrorResult(withCanary(message, canary));
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The one string property an output schema asks for, if it has exactly one (the filesystem server's `content`). */
function soleStringProperty(tool: Tool | undefined): string | undefined {
  const properties = tool?.outputSchema?.properties;
  if (!isRecord(properties)) return undefined;
  const strings = Object.entries(properties).filter(([, schema]) => isRecord(schema) && schema.type === 'string');
  return strings.length === 1 && Object.keys(properties).length === 1 ? strings[0]![0] : undefined;
}

/**
 * tool.stale_data's `result` as a CallToolResult. An object with a `content` array is taken as a
 * whole CallToolResult; another object becomes JSON text plus structuredContent; a string becomes
 * text, and also the structured output when the tool's output schema has a single string property —
 * SDK clients reject a result without structuredContent from a tool that declares an output schema.
 */
export function staleResult(result: unknown, tool: Tool | undefined): CallToolResult {
  if (isRecord(result) && Array.isArray(result.content)) return structuredClone(result) as CallToolResult;
  if (typeof result === 'string') {
    const key = soleStringProperty(tool);
    return key === undefined
      ? { content: [{ type: 'text', text: result }] }
      : { content: [{ type: 'text', text: result }], structuredContent: { [key]: result } };
  }
  const text = JSON.stringify(result, null, 2);
  return isRecord(result) ? { content: [{ type: 'text', text }], structuredContent: structuredClone(result) } : { content: [{ type: 'text', text }] };
}

/**
 * The real result with the payload carried inside it: an extra text item after the real content,
 * and, when the result has structured output, appended to its first string field too, so a client
 * that shows the model structuredContent instead of content carries it as well. Types stay valid.
 */
export function injectPayload(result: Record<string, unknown>, payload: string): Record<string, unknown> {
  const content: unknown[] = Array.isArray(result.content) ? result.content : [];
  const injected: Record<string, unknown> = { ...result, content: [...content, { type: 'text', text: payload }] };
  if (isRecord(result.structuredContent)) {
    const structured = { ...result.structuredContent };
    const key = Object.keys(structured).find((k) => typeof structured[k] === 'string');
    if (key !== undefined) {
      structured[key] = `${structured[key] as string}\n\n${payload}`;
      injected.structuredContent = structured;
    }
  }
  return injected;
}
