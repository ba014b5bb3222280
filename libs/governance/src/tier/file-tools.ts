// A file tool (Write, Edit, write_file, replace, apply_patch, an MCP server's write_file, move_file or
// delete …) doing what the tier blocks in a shell: writing, moving or deleting a system file or home
// configuration (protected_file, as `echo … > ~/.bashrc`), deleting the filesystem root, a system
// directory, home, the workspace root or above it (rm_recursive, as `rm -r`), or moving one of them
// (move_protected, as `mv`). Which tools: those whose name says they change files; a tool that reads,
// lists or searches what it names is not one.
import { classifyTarget, describePlace, isProtectedFile, workspaceOf, type PathContext } from '../paths.ts';
import { pathsOf, stringsOf } from '../subjects.ts';
import type { VerbHit } from './files.ts';

const WRITING_TOOL = /write|edit|replace|patch|create|save|append|insert|move|rename|delete|remove|overwrite|truncate|copy|trash|purge|wipe/i;
const DELETING_TOOL = /delete|remove|rmdir|trash|purge|wipe/i;
const MOVING_TOOL = /move|rename/i;
/** The files an apply_patch body names (`*** Update File: path`, `*** Move to: path`). */
const PATCH_FILE = /^\*\*\* (?:(?:Add|Update|Delete) File|Move to): (.+)$/gm;

/** The tier's hits for a file tool's call. */
export function fileToolHits(tool: string, input: unknown, ctx: PathContext): VerbHit[] {
  if (!WRITING_TOOL.test(tool)) return [];
  const patched = /patch/i.test(tool) ? stringsOf(input).flatMap((s) => [...s.matchAll(PATCH_FILE)].map((m) => m[1]!.trim())) : [];
  const dir = workspaceOf(ctx);
  const hits: VerbHit[] = [];
  for (const path of new Set([...pathsOf(input), ...patched])) {
    const place = classifyTarget(dir, path, ctx);
    if (place && DELETING_TOOL.test(tool)) hits.push({ rule: 'destructive.rm_recursive', detail: `${tool} of ${describePlace(place)}` });
    else if (place && MOVING_TOOL.test(tool)) hits.push({ rule: 'destructive.move_protected', detail: `${tool} of ${describePlace(place)}` });
    else if (isProtectedFile(dir, path, ctx)) hits.push({ rule: 'destructive.protected_file', detail: `${tool} ${path}` });
  }
  return hits;
}
