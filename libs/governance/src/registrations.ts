// What intutic's registrations look like in a harness's project settings, shared by the side that
// writes them (`intutic connect`, in @intutic/gates) and the side that checks a repetition carries
// them (@intutic/workspace): a hook whose command runs a gate script under .intutic/hooks/, and an
// MCP server wrapped as `intutic-mcp-proxy --name <server> -- <command> <args…>`. Pure: parsed JSON in.

type Json = Record<string, unknown>;

/** Where connect puts the gate scripts; every hook command of ours runs a file under it. */
export const GATE_SCRIPTS_MARKER = '.intutic/hooks/';
export const MCP_PROXY_BIN = 'intutic-mcp-proxy';

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A hook command that runs one of intutic's gate scripts. */
export function isGateCommand(command: unknown): boolean {
  return typeof command === 'string' && command.includes(GATE_SCRIPTS_MARKER);
}

/** Whether `value` (a hook group, an entry, a whole hooks table) holds a gate command anywhere in it. */
export function holdsGateCommand(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(holdsGateCommand);
  if (!isObject(value)) return false;
  if (isGateCommand(value.command)) return true;
  return Object.values(value).some((v) => typeof v === 'object' && holdsGateCommand(v));
}

/** Settings that register a gate: Claude Code, Codex, Gemini CLI (hooks.<Event>[].hooks[]) and Cursor (hooks.<event>[]). */
export function hasGateRegistration(settings: unknown): boolean {
  return isObject(settings) && holdsGateCommand(settings.hooks);
}

/** What in `settings` turns every hook off (so a registered gate would never run), or null. */
export function hooksTurnedOff(settings: unknown): string | null {
  if (!isObject(settings)) return null;
  if (settings.disableAllHooks === true) return 'disableAllHooks is true';
  if (isObject(settings.hooksConfig) && settings.hooksConfig.enabled === false) return 'hooksConfig.enabled is false';
  return null;
}

export function isWrappedMcpServer(server: unknown): boolean {
  return isObject(server) && typeof server.command === 'string' && (server.command === MCP_PROXY_BIN || server.command.endsWith(`/${MCP_PROXY_BIN}`));
}

/** A server's command line as intutic-mcp-proxy starts it, so the MCP faults sit between the agent and it. */
export function wrapMcpServer<Arg>(name: string, command: string, args: readonly Arg[]): { command: string; args: (string | Arg)[] } {
  return { command: MCP_PROXY_BIN, args: ['--name', name, '--', command, ...args] };
}

/** The server as it was before connect wrapped it (the command and args after `--`), or null when it is not wrapped that way. */
export function unwrapMcpServer(server: unknown): Json | null {
  if (!isWrappedMcpServer(server)) return null;
  const args = (server as Json).args;
  if (!Array.isArray(args) || args[0] !== '--name' || args[2] !== '--' || typeof args[3] !== 'string') return null;
  return { ...(server as Json), command: args[3], args: args.slice(4) };
}
