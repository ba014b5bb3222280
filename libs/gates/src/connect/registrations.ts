// Registering the gates in each harness's project settings, merged into what the user already has:
// their hooks and keys are kept, ours is updated in place when present (so a re-run changes nothing
// and a moved project gets its new path) and appended otherwise. Pure functions over parsed JSON.
import { isWrappedMcpServer, wrapMcpServer } from '@intutic/governance';

export type Json = Record<string, unknown>;

export class SettingsShapeError extends Error {
  constructor(
    readonly key: string,
    message: string,
  ) {
    super(message);
  }
}

function objectAt(parent: Json, key: string, where: string): Json {
  const v = parent[key];
  if (v === undefined) return (parent[key] = {});
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new SettingsShapeError(where, `${where} must be an object`);
  return v as Json;
}

function arrayAt(parent: Json, key: string, where: string): unknown[] {
  const v = parent[key];
  if (v === undefined) return (parent[key] = []);
  if (!Array.isArray(v)) throw new SettingsShapeError(where, `${where} must be an array`);
  return v;
}

const isOurs = (command: unknown, script: string): boolean => typeof command === 'string' && command.includes(`.intutic/hooks/${script}`);

/**
 * Claude Code, Codex and Gemini CLI: hooks.<Event> = [{ matcher, hooks: [{ type: "command", command }] }].
 * `timeout` is in the harness's own unit (seconds for Claude Code and Codex, milliseconds for Gemini CLI).
 */
export function registerMatcherHooks(settings: Json, events: readonly string[], script: string, command: string, timeout?: number): Json {
  const hooks = objectAt(settings, 'hooks', 'hooks');
  for (const event of events) {
    const groups = arrayAt(hooks, event, `hooks.${event}`);
    let found = false;
    for (const group of groups) {
      const inner = (group as Json | null)?.hooks;
      if (!Array.isArray(inner)) continue;
      for (const h of inner as Json[]) {
        if (h && isOurs(h.command, script)) {
          h.command = command;
          found = true;
        }
      }
    }
    if (!found) groups.push({ matcher: '*', hooks: [{ type: 'command', command, ...(timeout ? { timeout } : {}) }] });
  }
  return settings;
}

/** Cursor: { version: 1, hooks: { <event>: [{ command }] } }. */
export function registerCursorHooks(settings: Json, events: readonly string[], script: string, command: string): Json {
  if (settings.version === undefined) settings.version = 1;
  const hooks = objectAt(settings, 'hooks', 'hooks');
  for (const event of events) {
    const entries = arrayAt(hooks, event, `hooks.${event}`) as Json[];
    const ours = entries.filter((e) => e && isOurs(e.command, script));
    for (const e of ours) e.command = command;
    if (ours.length === 0) entries.push({ command });
  }
  return settings;
}

export interface McpWrapResult {
  wrapped: string[];
  alreadyWrapped: string[];
  /** Servers reached over HTTP/SSE: nothing to wrap. */
  skipped: string[];
}

/**
 * Wrap each stdio server of .mcp.json as `intutic-mcp-proxy --name <server> -- <command> <args…>`.
 * The original command and args follow `--` unchanged, so unwrapping is dropping the first three
 * args and taking the next as the command.
 */
export function wrapMcpServers(config: Json): McpWrapResult {
  const result: McpWrapResult = { wrapped: [], alreadyWrapped: [], skipped: [] };
  const servers = objectAt(config, 'mcpServers', 'mcpServers');
  for (const [name, raw] of Object.entries(servers)) {
    if (typeof raw !== 'object' || raw === null) throw new SettingsShapeError(`mcpServers.${name}`, `mcpServers.${name} must be an object`);
    const server = raw as Json;
    if (typeof server.command !== 'string') {
      result.skipped.push(name);
      continue;
    }
    if (isWrappedMcpServer(server)) {
      result.alreadyWrapped.push(name);
      continue;
    }
    Object.assign(server, wrapMcpServer(name, server.command, Array.isArray(server.args) ? server.args : []));
    result.wrapped.push(name);
  }
  return result;
}
