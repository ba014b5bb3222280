// A file tool (Write, Edit, write_file, replace, apply_patch, an MCP server's write_file, move_file or
// delete …) doing what the tier blocks in a shell: writing, moving or deleting a system file or home
// configuration (protected_file, as `echo … > ~/.bashrc`), deleting the filesystem root, a system
// directory, home, the workspace root or above it (rm_recursive, as `rm -r`), or moving one of them
// (move_protected, as `mv`). Which tools: those whose name says they change files; a tool that reads,
// lists or searches what it names is not one. A tool whose name carries no verb (`fs_op`, `do`) is
// judged by its input: an operation field that writes, moves or deletes, over every path-like field.
import { classifyTarget, describePlace, isProtectedFile, workspaceOf, type PathContext } from '../paths.ts';
import { pathsOf, stringsOf } from '../subjects.ts';
import type { VerbHit } from './files.ts';

const WRITING_TOOL = /write|edit|replace|patch|create|save|append|insert|move|rename|delete|remove|overwrite|truncate|copy|trash|purge|wipe/i;
const DELETING_TOOL = /delete|remove|rmdir|trash|purge|wipe/i;
const MOVING_TOOL = /move|rename/i;
/** The files an apply_patch body names (`*** Update File: path`, `*** Move to: path`). */
const PATCH_FILE = /^\*\*\* (?:(?:Add|Update|Delete) File|Move to): (.+)$/gm;

/** Fields that say what a verbless tool does (`fs_op {op: "write"}`), and fields that name a path. */
const OPERATION_KEY = /^(op|operation|action|mode|method|verb|kind|type|command|cmd|task)$/i;
const PATH_KEY = /path|file|target|dest|src|source|from|^to$|dir|folder|location|uri|name/i;

/** Shell verbs as operation values (`{action: "rm"}`), as the words the tool-name patterns know. */
const opVerb = (op: string): string =>
  /^(rm|rmdir|unlink|del|erase|destroy|drop)$/i.test(op)
    ? `delete (${op})`
    : /^mv$/i.test(op)
      ? 'move (mv)'
      : /^(cp|put|touch|set)$/i.test(op)
        ? `write (${op})`
        : op;

/** A verbless tool's operations and path-like values, from its input's fields (nested a few levels). */
function fieldsOf(input: unknown, out = { ops: [] as string[], paths: [] as [string, string][] }, depth = 0): { ops: string[]; paths: [string, string][] } {
  if (depth > 3 || typeof input !== 'object' || input === null) return out;
  for (const [key, value] of Object.entries(input)) {
    const values = Array.isArray(value) ? value : [value];
    for (const v of values) {
      if (typeof v === 'string') {
        if (OPERATION_KEY.test(key)) out.ops.push(v);
        if (PATH_KEY.test(key) || /^(~|\/|\.\.?\/)/.test(v)) out.paths.push([key, v.replace(/^file:\/\//, '')]);
      } else fieldsOf(v, out, depth + 1);
    }
  }
  return out;
}

/**
 * A tool that destroys a whole remote resource by its name (an MCP server's `delete_repository`,
 * `drop_database`, `destroy_cluster` …): a teardown whatever its input names.
 */
const TEARDOWN_TOOL =
  /(delete|destroy|drop|remove|purge|wipe|terminate)[_-]?(repo|repository|project|organization|org|database|db|bucket|cluster|namespace|table|schema|collection|environment|app|application|service|instance|volume|stack|workspace|account|index)s?$/i;

/** A tool that empties a datastore by its name (`flushall`, `truncate_table`, `delete_all_keys`, `reset_database` …). */
const WIPE_TOOL =
  /(^|[_-])(flush[_-]?all|flush[_-]?db|truncate([_-]?(table|tables|all))?|(delete|drop|remove|purge|clear)[_-]?all([_-][a-z]+)?|reset[_-]?(database|db))$/i;

/** The tier's hits for a file tool's call. */
export function fileToolHits(tool: string, input: unknown, ctx: PathContext): VerbHit[] {
  const bare = tool.replace(/^mcp__[^_]+(?:_[^_]+)*?__/, '');
  if (TEARDOWN_TOOL.test(bare)) return [{ rule: 'destructive.infra_teardown', detail: `${tool}: a whole remote resource destroyed` }];
  if (WIPE_TOOL.test(bare)) return [{ rule: 'destructive.datastore_wipe', detail: `${tool}: a datastore emptied` }];
  if (!WRITING_TOOL.test(tool)) {
    // A tool whose name carries no verb is judged by its input: an operation field that writes,
    // moves or deletes, over every path-like field.
    const { ops, paths } = fieldsOf(input);
    const op = ops.map(opVerb).find((o) => WRITING_TOOL.test(o));
    if (op === undefined) return [];
    // A copy only reads what it copies from: its destination is what it writes.
    const written = paths.filter(([key]) => !(/copy|cp\b/i.test(op) && /^(from|src|source)/i.test(key))).map(([, v]) => v);
    return verbHits(`${tool} ${op}`, op, written, ctx);
  }
  const patched = /patch/i.test(tool) ? stringsOf(input).flatMap((s) => [...s.matchAll(PATCH_FILE)].map((m) => m[1]!.trim())) : [];
  return verbHits(tool, tool, [...pathsOf(input), ...patched], ctx);
}

function verbHits(what: string, verb: string, named: string[], ctx: PathContext): VerbHit[] {
  const dir = workspaceOf(ctx);
  const hits: VerbHit[] = [];
  for (const path of new Set(named)) {
    const place = classifyTarget(dir, path, ctx);
    if (place && DELETING_TOOL.test(verb)) hits.push({ rule: 'destructive.rm_recursive', detail: `${what} of ${describePlace(place)}` });
    else if (place && MOVING_TOOL.test(verb)) hits.push({ rule: 'destructive.move_protected', detail: `${what} of ${describePlace(place)}` });
    else if (isProtectedFile(dir, path, ctx)) hits.push({ rule: 'destructive.protected_file', detail: `${what} ${path}` });
  }
  return hits;
}
