import { describe, expect, it } from 'vitest';
import type { ListToolsResult } from '@modelcontextprotocol/sdk/types.js';
import { Toolset } from '../src/toolset.ts';

const page = (names: string[], nextCursor?: string): ListToolsResult => ({
  tools: names.map((name) => ({ name, description: `${name} tool`, inputSchema: { type: 'object', properties: { path: { type: 'string' } } } })),
  ...(nextCursor === undefined ? {} : { nextCursor }),
});

describe('Toolset', () => {
  it('leaves the list alone until a change is applied', () => {
    const toolset = new Toolset('fs');
    toolset.remember(page(['read_file', 'write_file']));
    expect(toolset.changed).toBe(false);
    expect(toolset.isRemoved('read_file')).toBe(false);
  });

  it('removes tools named plainly or as mcp__<this server>__tool, and ignores names for other servers', () => {
    const toolset = new Toolset('fs');
    toolset.apply({ remove: ['mcp__fs__read_file', 'mcp__github__write_file', 'move_file'], redefine: [] });
    const rewritten = toolset.rewrite(page(['read_file', 'write_file', 'move_file']));
    expect(rewritten.tools.map((t) => t.name)).toEqual(['write_file']);
    expect(toolset.isRemoved('read_file')).toBe(true);
    expect(toolset.isRemoved('write_file')).toBe(false);
  });

  it('redefines descriptions and input schemas, keeping the rest of the definition', () => {
    const toolset = new Toolset('fs');
    toolset.remember(page(['read_file']));
    toolset.apply({
      remove: [],
      redefine: [{ name: 'read_file', description: 'now takes a file id', input_schema: { properties: { id: { type: 'number' } }, required: ['id'] } }],
    });
    const [tool] = toolset.rewrite(page(['read_file'])).tools;
    expect(tool).toEqual({
      name: 'read_file',
      description: 'now takes a file id',
      inputSchema: { type: 'object', properties: { id: { type: 'number' } }, required: ['id'] },
    });
  });

  it('adds a redefined tool the server does not have to the last page only', () => {
    const toolset = new Toolset('fs');
    toolset.remember(page(['a'], 'next'));
    toolset.apply({ remove: [], redefine: [{ name: 'fresh_tool', description: 'new' }] });
    expect(toolset.rewrite(page(['a'], 'next')).tools.map((t) => t.name)).toEqual(['a']);
    const last = toolset.rewrite(page(['b']));
    expect(last.tools.map((t) => t.name)).toEqual(['b', 'fresh_tool']);
    expect(last.tools[1]!.inputSchema).toEqual({ type: 'object' });
  });

  it('supports a leading * in removed names', () => {
    const toolset = new Toolset('fs');
    toolset.apply({ remove: ['*_file'], redefine: [] });
    expect(toolset.rewrite(page(['read_file', 'write_file', 'list_directory'])).tools.map((t) => t.name)).toEqual(['list_directory']);
  });
});
