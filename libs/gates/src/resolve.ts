// The gate's look at the disk before it decides, so that a call is judged by what its words point at
// now rather than by how they are spelled: the real path of every path the tier checks (links
// followed, `..` folded: `rc` made a link to ~/.bashrc in an earlier call is ~/.bashrc), the content
// of every script a shell runs, what a bare command name is on PATH, and whether a program run by
// path is a coding agent by its content. The tier asks (diskQuestions), this answers, and the answers
// raise new questions (a script that runs another) for a few rounds; whatever is left unanswered the
// tier judges as the worst case. Nothing here follows a FIFO or reads past a bound.
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readlinkSync, readSync, statSync, type Dirent, type Stats } from 'node:fs';
import { dirname, posix } from 'node:path';
import { diskQuestions, type DiskView, type FileFacts, type ToolCallSubject } from '@intutic/governance';

/** A script longer than this is not read: the tier blocks it as one it cannot check. */
export const MAX_SCRIPT_BYTES = 256 * 1024;
const MAX_ROUNDS = 6;
const MAX_QUESTIONS = 512;
const MAX_LINK_HOPS = 40;
const SNIFF_BYTES = 4096;
/** Agents' files are megabytes; anything smaller is not hashed. */
const MIN_AGENT_BYTES = 1024 * 1024;
/** Programs the agent user cannot write: an agent copied or linked under another name is never there. */
const PROGRAM_TREES = /^\/(usr|bin|sbin|lib|lib32|lib64|libx32|opt|etc)(\/|$)/;
/** Commands of the coding agents installed in our images: their files are the reference for hashes. */
const AGENT_NAMES = ['claude', 'codex', 'gemini', 'cursor-agent', 'aider', 'opencode', 'qwen', 'copilot', 'amp', 'crush'];

/** `realpath -m`: links followed in every component that exists, the rest folded as written. */
export function realPath(abs: string): string {
  // /proc/self is the gate's own process, not the command's: its links say nothing about the call.
  if (/^\/proc(\/|$)/.test(abs)) return posix.normalize(abs);
  let todo = abs.split('/').filter((s) => s !== '' && s !== '.');
  let done = '/';
  for (let hops = 0; todo.length > 0;) {
    const seg = todo.shift()!;
    if (seg === '..') {
      done = posix.dirname(done);
      continue;
    }
    const next = posix.join(done, seg);
    let st: Stats;
    try {
      st = lstatSync(next);
    } catch {
      return posix.normalize(posix.join(next, ...todo));
    }
    if (st.isSymbolicLink() && ++hops <= MAX_LINK_HOPS) {
      const target = readlinkSync(next);
      todo = [...target.split('/').filter((s) => s !== '' && s !== '.'), ...todo];
      if (target.startsWith('/')) done = '/';
      continue;
    }
    done = next;
  }
  return done;
}

/** The first executable named `name` on PATH, as an absolute path, or null. */
function whichOnPath(name: string, pathVar: string | undefined): string | null {
  for (const dir of (pathVar ?? '').split(':')) {
    if (!dir.startsWith('/')) continue;
    const candidate = posix.join(dir, name);
    try {
      const st = statSync(candidate);
      if (st.isFile() && (st.mode & 0o111) !== 0) return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

interface Reference {
  agent: string;
  size: number;
  path: string;
  hash?: string;
}

/** The installed agents' large files (their entry scripts, bundles, native binaries), found from their commands on PATH. */
function agentReferences(pathVar: string | undefined): Reference[] {
  const out: Reference[] = [];
  for (const name of AGENT_NAMES) {
    const found = whichOnPath(name, pathVar);
    if (!found) continue;
    const real = realPath(found);
    const pkg = /^(.*\/node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(real)?.[1];
    const files: string[] = [real];
    if (pkg) {
      // The package's own tree, and its platform packages (`claude-code-linux-x64`) beside or inside it.
      const roots = [pkg, posix.join(pkg, 'node_modules', posix.basename(dirname(pkg)))];
      const scopes = [dirname(pkg), roots[1]!];
      for (const root of scopes) for (const e of listDir(root)) if (e.startsWith(posix.basename(pkg))) roots.push(posix.join(root, e));
      for (const root of new Set(roots)) collectFiles(root, 0, files);
    }
    for (const f of new Set(files)) {
      try {
        const st = statSync(f);
        if (st.isFile() && st.size >= MIN_AGENT_BYTES) out.push({ agent: name, size: st.size, path: f });
      } catch {
        // gone
      }
    }
  }
  return out;
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir).slice(0, 500);
  } catch {
    return [];
  }
}

function collectFiles(dir: string, depth: number, out: string[]): void {
  if (depth > 6 || out.length > 2000) return;
  for (const e of readdirSafe(dir)) {
    const p = posix.join(dir, e.name);
    if (e.isDirectory() && e.name !== 'node_modules') collectFiles(p, depth + 1, out);
    else if (e.isFile()) out.push(p);
  }
}

function readdirSafe(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true }).slice(0, 500);
  } catch {
    return [];
  }
}

function sha256Of(path: string): string | null {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    if (!fstatSync(fd).isFile()) return null;
    const hash = createHash('sha256');
    const buffer = Buffer.alloc(1 << 20);
    for (let n; (n = readSync(fd, buffer, 0, buffer.length, null)) > 0;) hash.update(buffer.subarray(0, n));
    return hash.digest('hex');
  } catch {
    return null;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Script text read for one call, all files together. */
const MAX_TOTAL_BYTES = 2 * 1024 * 1024;

export class DiskInspector {
  private references: Reference[] | null = null;
  private bytesLeft = MAX_TOTAL_BYTES;

  constructor(private readonly pathVar: string | undefined) {}

  /** The agent a file outside the program trees is, by content: same size and hash as an installed agent's file. */
  private agentByContent(path: string, size: number): string | undefined {
    if (size < MIN_AGENT_BYTES || PROGRAM_TREES.test(realPath(path))) return undefined;
    this.references ??= agentReferences(this.pathVar);
    const same = this.references.filter((r) => r.size === size);
    if (same.length === 0) return undefined;
    const hash = sha256Of(path);
    for (const r of same) {
      r.hash ??= sha256Of(r.path) ?? '';
      if (hash !== null && r.hash === hash) return r.agent;
    }
    return undefined;
  }

  /** What is at a path a command runs: never blocking on a FIFO or a device, never reading past the bound. */
  fileFacts(abs: string): FileFacts {
    if (/^\/(proc|dev|sys)(\/|$)/.test(abs)) return { kind: 'unreadable', why: 'not a regular file' };
    let fd: number;
    try {
      fd = openSync(abs, constants.O_RDONLY | constants.O_NONBLOCK);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return code === 'ENOENT' || code === 'ENOTDIR' ? { kind: 'missing' } : { kind: 'unreadable', why: code ?? 'cannot be opened' };
    }
    try {
      const st = fstatSync(fd);
      if (!st.isFile()) return st.isDirectory() ? { kind: 'missing' } : { kind: 'unreadable', why: 'not a regular file' };
      const head = Buffer.alloc(Math.min(st.size, SNIFF_BYTES));
      const n = head.length > 0 ? readSync(fd, head, 0, head.length, 0) : 0;
      const agent = this.agentByContent(abs, st.size);
      if (head.subarray(0, n).includes(0)) return { kind: 'binary', ...(agent ? { agent } : {}) };
      if (agent) return { kind: 'text', agent };
      if (st.size > MAX_SCRIPT_BYTES) return { kind: 'unreadable', why: `larger than ${MAX_SCRIPT_BYTES / 1024} KiB` };
      if (st.size > this.bytesLeft) return { kind: 'unreadable', why: 'more script text than one call may read' };
      this.bytesLeft -= st.size;
      const body = Buffer.alloc(st.size);
      const read = st.size > 0 ? readSync(fd, body, 0, st.size, 0) : 0;
      return { kind: 'text', text: body.subarray(0, read).toString('utf8') };
    } catch (error) {
      return { kind: 'unreadable', why: (error as NodeJS.ErrnoException).code ?? 'cannot be read' };
    } finally {
      closeSync(fd);
    }
  }

  /** Answer what deciding `call` depends on, round after round, within the bounds. */
  inspect(call: ToolCallSubject): DiskView {
    const disk: Required<DiskView> = { real: {}, files: {}, commands: {} };
    const seen = { paths: new Set<string>(), files: new Set<string>(), commands: new Set<string>() };
    let budget = MAX_QUESTIONS;
    for (let round = 0; round < MAX_ROUNDS && budget > 0; round++) {
      const q = diskQuestions({ ...call, disk });
      const fresh = {
        paths: q.paths.filter((p) => !seen.paths.has(p)),
        files: q.files.filter((f) => !seen.files.has(f)),
        commands: q.commands.filter((c) => !seen.commands.has(c)),
      };
      if (fresh.paths.length + fresh.files.length + fresh.commands.length === 0) break;
      for (const p of fresh.paths) {
        if (budget-- <= 0) break;
        seen.paths.add(p);
        const real = realPath(p);
        if (real !== p) disk.real[p] = real;
      }
      for (const f of fresh.files) {
        if (budget-- <= 0) break;
        seen.files.add(f);
        disk.files[f] = this.fileFacts(f);
      }
      for (const c of fresh.commands) {
        if (budget-- <= 0) break;
        seen.commands.add(c);
        const found = whichOnPath(c, this.pathVar);
        if (found) disk.commands[c] = found;
      }
    }
    return disk;
  }
}
