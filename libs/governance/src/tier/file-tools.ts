// A file tool (Write, Edit, write_file, replace, apply_patch, an MCP server's write_file or move_file
// …) writing, moving or deleting a system file or home configuration: the same protected_file hit
// the tier gives `echo … > ~/.bashrc`, whichever tool the agent does it with. A tool that reads,
// lists or searches what it names is not one: only a tool whose name says it changes files.
import { isProtectedFile, workspaceOf, type PathContext } from '../paths.ts';
import { pathsOf, stringsOf } from '../subjects.ts';

const WRITING_TOOL = /write|edit|replace|patch|create|save|append|insert|move|rename|delete|remove|overwrite|truncate|copy/i;
/** The files an apply_patch body names (`*** Update File: path`, `*** Move to: path`). */
const PATCH_FILE = /^\*\*\* (?:(?:Add|Update|Delete) File|Move to): (.+)$/gm;

/** The protected files a file tool's call would change, as `<tool> <path>` details. */
export function protectedFileWrites(tool: string, input: unknown, ctx: PathContext): string[] {
  if (!WRITING_TOOL.test(tool)) return [];
  const patched = /patch/i.test(tool) ? stringsOf(input).flatMap((s) => [...s.matchAll(PATCH_FILE)].map((m) => m[1]!.trim())) : [];
  const dir = workspaceOf(ctx);
  return [...new Set([...pathsOf(input), ...patched])].filter((path) => isProtectedFile(dir, path, ctx)).map((path) => `${tool} ${path}`);
}
