// A committed hook settings file (or .mcp.json) that `intutic connect` edited in the project: the
// repetition gets the commit's copy with intutic's registrations taken from the project's copy — the
// gate hooks, Gemini CLI's hooks switched back on, the MCP servers connect wrapped — and nothing else
// of the project's uncommitted edits. The commit's keys, their order and its indentation are kept.
import { holdsGateCommand, isWrappedMcpServer, unwrapMcpServer } from '@intutic/governance';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function parseObject(text: string): Json | null {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : null;
  } catch {
    return null;
  }
}

/** The indentation of the text's first indented line (a tab, or some spaces); 2 spaces when there is none. */
export function detectIndent(text: string): string {
  const m = /^[ \t]*\{[^\n]*\n([ \t]+)\S/.exec(text) ?? /\n([ \t]+)\S/.exec(text);
  return m ? m[1]! : '  ';
}

/** Canonical JSON (sorted keys, empty args dropped) for "the same server" comparisons. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value)) {
    const keys = Object.keys(value)
      .filter((k) => !(k === 'args' && Array.isArray(value[k]) && (value[k] as unknown[]).length === 0))
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

const scriptOf = (group: unknown): string | null => {
  const found = /\.intutic\/hooks\/([^\s"'/]+)/.exec(JSON.stringify(group));
  return found ? found[1]! : null;
};

/** Each working-copy hook entry that runs a gate, into the committed table: replacing a stale entry of the same gate, else appended. */
function mergeHooks(committed: Json, working: Json): void {
  if (!isObject(working.hooks)) return;
  for (const [event, entries] of Object.entries(working.hooks)) {
    if (!Array.isArray(entries)) continue;
    for (const entry of entries.filter(holdsGateCommand)) {
      if (!isObject(committed.hooks)) committed.hooks = {};
      const table = committed.hooks as Json;
      if (!Array.isArray(table[event])) table[event] = [];
      const list = table[event] as unknown[];
      if (list.some((e) => canonical(e) === canonical(entry))) continue;
      const stale = list.findIndex((e) => holdsGateCommand(e) && scriptOf(e) === scriptOf(entry));
      if (stale >= 0) list[stale] = entry;
      else list.push(entry);
    }
  }
}

/** Hooks switched off in the commit but on in the project (connect turns Gemini CLI's back on). */
function mergeHooksSwitch(committed: Json, working: Json): void {
  const config = committed.hooksConfig;
  if (isObject(config) && config.enabled === false && !(isObject(working.hooksConfig) && working.hooksConfig.enabled === false)) config.enabled = true;
}

/** A committed server connect wrapped in the project: the wrapped form. Servers only the project has are its own edits, not carried. */
function mergeMcpServers(committed: Json, working: Json): void {
  if (!isObject(committed.mcpServers) || !isObject(working.mcpServers)) return;
  const servers = committed.mcpServers;
  for (const [name, server] of Object.entries(working.mcpServers)) {
    if (!isWrappedMcpServer(server) || !(name in servers)) continue;
    const original = unwrapMcpServer(server);
    if (original && canonical(original) === canonical(servers[name])) servers[name] = server;
  }
}

/**
 * The committed settings text merged with intutic's registrations from the project's copy, laid out
 * as the commit lays out its file; null when either is not a JSON object (the commit's copy is kept).
 */
export function mergeRegistrations(committedText: string, workingText: string): string | null {
  const committed = parseObject(committedText);
  const working = parseObject(workingText);
  if (!committed || !working) return null;
  mergeHooks(committed, working);
  mergeHooksSwitch(committed, working);
  mergeMcpServers(committed, working);
  const out = JSON.stringify(committed, null, detectIndent(committedText));
  return committedText.endsWith('\n') ? `${out}\n` : out;
}

/**
 * Whether the project's .mcp.json differs from the commit's only by connect's wrapping of committed
 * servers: then it is no uncommitted change of the user's (the repetition gets the same wrapping).
 */
export function onlyMcpWrapping(committedText: string, workingText: string): boolean {
  const committed = parseObject(committedText);
  const working = parseObject(workingText);
  if (!committed || !working || !isObject(working.mcpServers)) return false;
  const unwrapped: Json = { ...working, mcpServers: { ...working.mcpServers } };
  for (const [name, server] of Object.entries(working.mcpServers)) {
    if (isWrappedMcpServer(server)) (unwrapped.mcpServers as Json)[name] = unwrapMcpServer(server) ?? server;
  }
  return canonical(unwrapped) === canonical(committed);
}
