// The names a call is known by: `mcp__server__tool` in a harness is `tool` on server `server` in the
// MCP proxy, and a path may be written relative to the call's cwd or absolute. Rules and bypasses
// match any of these forms, so one rule covers every way the same call can be spelled.
import { isAbsolute, relative, resolve } from 'node:path';

const MCP_NAME = /^mcp__(.+?)__(.+)$/;

export function canonicalToolNames(tool: string, server?: string): string[] {
  const names = [tool];
  const m = MCP_NAME.exec(tool);
  if (m) names.push(m[2]!);
  else if (server !== undefined) names.push(`mcp__${server}__${tool}`);
  return names;
}

export function pathForms(path: string, cwd?: string): string[] {
  const forms = [path];
  if (cwd === undefined || !isAbsolute(cwd)) return forms;
  const abs = isAbsolute(path) ? resolve(path) : resolve(cwd, path);
  forms.push(abs);
  const rel = relative(cwd, abs);
  if (rel !== '' && !rel.startsWith('..')) forms.push(rel);
  return [...new Set(forms)];
}
