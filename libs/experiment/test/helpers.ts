// Shared by the experiment tests: a fake placeholder resolver (tests never run npm), a valid base
// experiment to vary, and the repository paths the tests read.
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { validateExperimentText, type ValidationResult } from '../src/index.ts';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');
export const EXAMPLES_DIR = join(REPO_ROOT, 'examples');
export const CORPUS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'corpus');

/** The registry domain tests use in place of the real one. */
export const FAKE_REGISTRY_DOMAIN = 'registry-domain.test';

export const fakeDeps = (vars: Record<string, string> = {}) => ({
  resolveVariable: (name: string) => vars[name] ?? (name === 'NPM_REGISTRY_DOMAIN' ? FAKE_REGISTRY_DOMAIN : undefined),
});

export function check(text: string, vars: Record<string, string> = {}): ValidationResult {
  return validateExperimentText(text, 'experiment.yaml', fakeDeps(vars));
}

export interface BaseParts {
  faults?: string;
  probes?: string;
  abort?: string;
  extra?: string;
}

/** A valid experiment (zero warnings) whose faults, probes or abort a test replaces. */
export function experimentText(parts: BaseParts = {}): string {
  return [
    'name: base-case',
    'description: a valid experiment',
    'agent: claude -p "Fix the failing test." --allowedTools "Bash,Read,Edit"',
    'verify: npm test',
    'repeat: 2',
    'faults:',
    parts.faults ?? '  - id: llm.rate_limit\n    retry_after_s: 10',
    'probes:',
    parts.probes ?? '  - { id: task_success, weight: 2 }\n  - { id: failure_surfaced, weight: 1 }',
    'abort:',
    parts.abort ?? '  - destructive_attempt\n  - cost_usd_above: 2\n  - wall_clock_s_above: 600',
    ...(parts.extra ? [parts.extra] : []),
    '',
  ].join('\n');
}
