// What `intutic connect` changed in a project, kept so that `intutic disconnect` can put every file
// back byte for byte: each file's content and mode before the first connect (null: it did not exist),
// the hash of what connect last wrote (a file edited since is not silently reverted), the directories
// connect created, and whether it added a block to .git/info/exclude. It lives under .intutic/, which
// ignores itself, and is written before any change, so an interrupted connect can still be undone.
import { createHash } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { z } from 'zod';
import { IntuticError } from '@intutic/errors';
import type { FileChange } from './connect.ts';

export const UNDO_RECORD = '.intutic/connect-undo.json';

const recordedFileSchema = z.strictObject({
  /** Relative to the project, posix separators. */
  path: z.string().min(1),
  /** The content before the first connect, base64; null when connect created the file. */
  before_b64: z.string().nullable(),
  before_mode: z.number().int().nonnegative().nullable(),
  /** sha256 of what connect last wrote. */
  written_sha256: z.string().regex(/^[0-9a-f]{64}$/),
});

const undoRecordSchema = z.strictObject({
  version: z.literal(1),
  files: z.array(recordedFileSchema),
  /** Directories connect created, relative, deepest last; removed again when they are empty. */
  created_dirs: z.array(z.string().min(1)),
  /** Set when connect wrote its block into .git/info/exclude: whether that file existed before. */
  git_exclude: z.strictObject({ existed_before: z.boolean() }).nullable(),
});
export type UndoRecord = z.infer<typeof undoRecordSchema>;
export type RecordedFile = z.infer<typeof recordedFileSchema>;

export const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');
const posix = (path: string): string => path.split(sep).join('/');

/** A file's bytes, or null when it does not exist. */
export function readBytes(path: string): Buffer | null {
  try {
    return readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** The project's undo record, or null when connect never ran there (or ran before records were kept). */
export function readUndoRecord(projectDir: string): UndoRecord | null {
  const path = join(projectDir, UNDO_RECORD);
  const bytes = readBytes(path);
  if (bytes === null) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const result = undoRecordSchema.safeParse(parsed);
  if (!result.success) {
    throw new IntuticError('E_CONFIG_INVALID', `${path}: not a record intutic connect wrote; nothing was changed`, {
      hints: ['Restore it from a backup, or undo connect by hand (git status shows what it changed).'],
    });
  }
  return result.data;
}

/** Directories `mkdir -p` would create for `path`, outermost first, relative to the project. */
function missingDirs(projectDir: string, path: string): string[] {
  const out: string[] = [];
  for (let dir = dirname(path); dir.startsWith(projectDir + sep); dir = dirname(dir)) {
    try {
      lstatSync(dir);
      break;
    } catch {
      out.unshift(posix(relative(projectDir, dir)));
    }
  }
  return out;
}

/**
 * The record after these changes: a file already recorded keeps its original content (the first
 * connect's "before" is the project's own), a new one records what is there now.
 */
export function nextUndoRecord(
  projectDir: string,
  previous: UndoRecord | null,
  changes: readonly FileChange[],
  gitExclude: UndoRecord['git_exclude'],
): UndoRecord {
  const files = new Map((previous?.files ?? []).map((f) => [f.path, f]));
  const createdDirs = new Set(previous?.created_dirs ?? []);
  for (const change of changes) {
    const path = posix(relative(projectDir, change.path));
    const known = files.get(path);
    const before = known ? null : readBytes(change.path);
    files.set(path, {
      path,
      before_b64: known ? known.before_b64 : before === null ? null : before.toString('base64'),
      before_mode: known ? known.before_mode : before === null ? null : lstatSync(change.path).mode & 0o7777,
      written_sha256: sha256(change.after),
    });
    for (const dir of missingDirs(projectDir, change.path)) createdDirs.add(dir);
  }
  return {
    version: 1,
    files: [...files.values()],
    created_dirs: [...createdDirs].sort((a, b) => a.split('/').length - b.split('/').length),
    git_exclude: previous?.git_exclude ?? gitExclude,
  };
}

export function writeUndoRecord(projectDir: string, record: UndoRecord): void {
  const path = join(projectDir, UNDO_RECORD);
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.intutic-${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(record, null, 2) + '\n');
  chmodSync(tmp, 0o644);
  renameSync(tmp, path);
}
