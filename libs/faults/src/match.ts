// Matching a call against a planned fault, and counting matching calls. Each injecting component
// counts its own matching calls: skip `after_calls`, then inject at most `times` times.
import type { FaultMatch, PlanFault } from './plan.ts';

/** A leading `*` matches by suffix; anything else must be equal. Hosts and models ignore case. */
export function patternMatches(pattern: string, value: string, { ignoreCase = false } = {}): boolean {
  const p = ignoreCase ? pattern.toLowerCase() : pattern;
  const v = ignoreCase ? value.toLowerCase() : value;
  if (p === '*') return true;
  if (p.startsWith('*')) return v.endsWith(p.slice(1));
  return p === v;
}

const MCP_NAME = /^mcp__(.+?)__(.+)$/;

/** Split a harness tool name `mcp__server__tool` into its parts; null for a built-in tool. */
export function splitMcpToolName(name: string): { server: string; tool: string } | null {
  const m = MCP_NAME.exec(name);
  return m ? { server: m[1]!, tool: m[2]! } : null;
}

/** The name the probes and matchers use for a tool: `mcp__server__tool` and `tool` are the same tool. */
export function canonicalToolName(name: string): string {
  return splitMcpToolName(name)?.tool ?? name;
}

export interface CallTarget {
  tool?: string;
  /** The MCP server the call goes to, when known (the MCP proxy's --name). */
  server?: string;
  host?: string;
  model?: string;
}

function toolMatches(pattern: string, target: CallTarget): boolean {
  if (target.tool === undefined) return false;
  if (patternMatches(pattern, target.tool)) return true;
  // `read_file` matches the gate's `mcp__fs__read_file`; `mcp__fs__read_file` matches the MCP proxy's
  // `read_file` on server fs.
  const canonical = canonicalToolName(target.tool);
  if (patternMatches(pattern, canonical)) return true;
  const split = splitMcpToolName(pattern);
  if (split && target.server !== undefined) {
    return split.server === target.server && patternMatches(split.tool, canonical);
  }
  return false;
}

/** Every key of `match` must match the target; an empty match matches every call the injector sees. */
export function faultMatches(match: FaultMatch, target: CallTarget): boolean {
  if (match.tool !== undefined && !toolMatches(match.tool, target)) return false;
  if (match.host !== undefined && (target.host === undefined || !patternMatches(match.host, target.host, { ignoreCase: true }))) return false;
  if (match.model !== undefined && (target.model === undefined || !patternMatches(match.model, target.model, { ignoreCase: true }))) return false;
  return true;
}

export interface FaultCounter {
  /** Matching calls seen so far. */
  seen: number;
  /** Injections so far. */
  injected: number;
}

export const emptyCounter = (): FaultCounter => ({ seen: 0, injected: 0 });

/** Count one matching call and say whether to inject into it. Pure: returns the next counter. */
export function countMatchingCall(fault: Pick<PlanFault, 'after_calls' | 'times'>, counter: FaultCounter): { inject: boolean; next: FaultCounter } {
  const position = counter.seen;
  const inject = position >= fault.after_calls && (fault.times === null || counter.injected < fault.times);
  return { inject, next: { seen: counter.seen + 1, injected: counter.injected + (inject ? 1 : 0) } };
}
