// The toolset the client sees. The proxy remembers the server's tool definitions (tools/list) and,
// once an mcp.toolset_change has fired, answers tools/list with that change applied: removed tools
// left out, redefined ones with the new description or input schema, a redefined name the server
// does not have added as a new tool (its calls reach the server, which answers as for any unknown tool).
import type { ListToolsResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { patternMatches, splitMcpToolName } from '@intutic/faults';

export interface ToolRedefinition {
  name: string;
  description?: string;
  input_schema?: Record<string, unknown>;
}

export interface ToolsetChange {
  remove: readonly string[];
  redefine: readonly ToolRedefinition[];
}

export class Toolset {
  private readonly server: string;
  private readonly known = new Map<string, Tool>();
  private readonly removed: string[] = [];
  private readonly redefined = new Map<string, ToolRedefinition>();

  constructor(server: string) {
    this.server = server;
  }

  /** Whether any change has been applied (before that, tools/list passes through untouched). */
  get changed(): boolean {
    return this.removed.length > 0 || this.redefined.size > 0;
  }

  /** `mcp__<this server>__x` and `x` name the same tool; a name for another server names none here. */
  private localName(name: string): string | null {
    const split = splitMcpToolName(name);
    if (!split) return name;
    return split.server === this.server ? split.tool : null;
  }

  apply(change: ToolsetChange): void {
    for (const name of change.remove) {
      const local = this.localName(name);
      if (local !== null) this.removed.push(local);
    }
    for (const definition of change.redefine) {
      const local = this.localName(definition.name);
      if (local !== null) this.redefined.set(local, { ...definition, name: local });
    }
  }

  /** Names in `remove` may use a leading `*` (suffix match), like every tool pattern in a plan. */
  isRemoved(tool: string): boolean {
    return this.removed.some((pattern) => patternMatches(pattern, tool));
  }

  /** The server's own definition of a tool, from the last tools/list that named it. */
  definition(tool: string): Tool | undefined {
    return this.known.get(tool);
  }

  remember(result: ListToolsResult): void {
    for (const tool of result.tools) this.known.set(tool.name, tool);
  }

  /** The page as the client should see it; new tools from `redefine` are added to the last page. */
  rewrite(result: ListToolsResult): ListToolsResult {
    const tools: Tool[] = [];
    for (const tool of result.tools) {
      if (this.isRemoved(tool.name)) continue;
      tools.push(this.redefine(tool));
    }
    if (result.nextCursor === undefined) {
      for (const name of this.redefined.keys()) {
        if (this.known.has(name) || this.isRemoved(name)) continue;
        tools.push(this.redefine({ name, inputSchema: { type: 'object' } }));
      }
    }
    return { ...result, tools };
  }

  private redefine(tool: Tool): Tool {
    const definition = this.redefined.get(tool.name);
    if (!definition) return tool;
    const next: Tool = { ...tool };
    if (definition.description !== undefined) next.description = definition.description;
    if (definition.input_schema !== undefined) next.inputSchema = { type: 'object', ...definition.input_schema };
    return next;
  }
}
