// How the CLI tells a suite file from an experiment (`chaos validate` takes either) and validates
// one: the suite's experiments are found relative to the suite file, and diagnostics name files as
// the user wrote them whenever this process runs where the command was given.
import { resolve } from 'node:path';
import { validateSuiteFile, type ResolveVariable, type SuiteValidation } from '@intutic/experiment';

/** A suite names experiments and profiles at its top level, and no agent, task or faults of its own. */
export function looksLikeSuite(text: string): boolean {
  return /^experiments\s*:/m.test(text) && /^profiles\s*:/m.test(text) && !/^(agent|task|faults)\s*:/m.test(text);
}

export function validateSuiteAt(cwd: string, file: string, resolveVariable: ResolveVariable): Promise<SuiteValidation> {
  const path = resolve(cwd, file);
  return validateSuiteFile(resolve(cwd) === process.cwd() ? file : path, { resolveVariable });
}
