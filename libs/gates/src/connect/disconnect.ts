// `intutic disconnect`: put back what `intutic connect` changed, from its undo record. Every file
// connect wrote returns to its bytes and mode before the first connect, or is removed when connect
// created it; the directories it created go when empty. A file edited since connect wrote it is not
// reverted unless asked (`force`): the whole plan is refused first, so nothing is half undone.
import { chmodSync, renameSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { IntuticError } from '@intutic/errors';
import { readBytes, readUndoRecord, sha256, UNDO_RECORD, type RecordedFile, type UndoRecord } from './undo-record.ts';

export interface Restore {
  /** Relative to the project. */
  path: string;
  /** What goes back: the original bytes, or null to remove the file connect created. */
  bytes: Buffer | null;
  mode: number | null;
}

export interface DisconnectPlan {
  record: UndoRecord;
  restores: Restore[];
  /** Files whose content is neither what connect wrote nor the original: someone edited them since. */
  editedSince: string[];
}

function isOriginal(current: Buffer | null, file: RecordedFile): boolean {
  if (file.before_b64 === null) return current === null;
  return current !== null && current.equals(Buffer.from(file.before_b64, 'base64'));
}

export function planDisconnect(projectDir: string): DisconnectPlan {
  const record = readUndoRecord(projectDir);
  if (record === null) {
    throw new IntuticError('E_NOT_CONNECTED', `intutic connect has not run in ${projectDir} (there is no ${UNDO_RECORD}): nothing to undo`, {
      hints: ['Run intutic disconnect in the directory intutic connect ran in (or pass it with --dir).'],
    });
  }
  const restores: Restore[] = [];
  const editedSince: string[] = [];
  for (const file of record.files) {
    const current = readBytes(join(projectDir, file.path));
    if (isOriginal(current, file)) continue;
    if (current === null || sha256(current) !== file.written_sha256) editedSince.push(file.path);
    restores.push({ path: file.path, bytes: file.before_b64 === null ? null : Buffer.from(file.before_b64, 'base64'), mode: file.before_mode });
  }
  return { record, restores, editedSince };
}

/** Restore every file, remove the record, then the directories connect created, deepest first, when empty. */
export function applyDisconnect(projectDir: string, plan: DisconnectPlan, options: { force?: boolean } = {}): void {
  if (plan.editedSince.length > 0 && !options.force) {
    throw new IntuticError('E_CHANGED_SINCE_CONNECT', `edited since intutic connect wrote them: ${plan.editedSince.join(', ')}; nothing was changed`, {
      hints: ['Put those edits aside, or run intutic disconnect --force to restore them to what they were before connect (your later edits are lost).'],
    });
  }
  for (const { path, bytes, mode } of plan.restores) {
    const target = join(projectDir, path);
    if (bytes === null) {
      rmSync(target, { force: true });
      continue;
    }
    const tmp = `${target}.intutic-${process.pid}.tmp`;
    writeFileSync(tmp, bytes);
    if (mode !== null) chmodSync(tmp, mode);
    renameSync(tmp, target);
  }
  rmSync(join(projectDir, UNDO_RECORD), { force: true });
  for (const dir of [...plan.record.created_dirs].reverse()) {
    try {
      rmdirSync(join(projectDir, dir));
    } catch {
      // Not empty (something else lives there now) or already gone: it stays as it is.
    }
  }
}
