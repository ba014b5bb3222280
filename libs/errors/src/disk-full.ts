// Writes that find no space left. A report, a rendering or a repetition's artifact that cannot be
// written because the disk is full must say so and name the directory — never surface as a bare
// "ENOSPC: no space left on device, write" (which names no path) or as a bug with a stack trace.
import { IntuticError } from './index.ts';

/** ENOSPC (the disk is full) or EDQUOT (the user's quota is). */
export function isDiskFull(error: unknown): error is NodeJS.ErrnoException {
  const code = (error as NodeJS.ErrnoException | null | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

/** What the user reads: that the disk is full, in which directory, writing what, and what to do. */
export function diskFullMessage(dir: string, what: string, error?: unknown): string {
  const full = (error as NodeJS.ErrnoException | undefined)?.code === 'EDQUOT' ? 'the disk quota is exceeded' : 'the disk is full';
  return `${full}: no space left in ${dir} to write ${what}; free some space there (or use a path on another disk) and try again`;
}

/** A failed write under `dir`, as the error to throw: disk full said as such, anything else unchanged. */
export function writeFailure(dir: string, what: string, error: unknown): unknown {
  return isDiskFull(error) ? new IntuticError('E_DISK_FULL', diskFullMessage(dir, what, error), { cause: error }) : error;
}
