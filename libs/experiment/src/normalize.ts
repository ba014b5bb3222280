// The parsed file turned into the normalized Experiment of model.ts: each fault's own options parsed
// by the catalog's option schema (defaults filled in), match defaulted to {}, times to null, abort
// folded into a record.
import { getFault } from '@intutic/faults';
import type { Finding } from './diagnostics.ts';
import type { ExperimentFile } from './file-schema.ts';
import { findingsFromIssues } from './issues.ts';
import { agentCommandFor, builtInProfile, DEFAULT_PROFILE_ID } from './profiles.ts';
import { experimentSchema, type Experiment, type NormalizedFault } from './model.ts';

export function normalizeExperiment(file: ExperimentFile, raw: unknown): { experiment?: Experiment; findings: Finding[] } {
  const findings: Finding[] = [];
  const faults: NormalizedFault[] = file.faults.map((entry, index) => {
    const { id, match, after_calls, times, ...own } = entry as ExperimentFile['faults'][number] & Record<string, unknown>;
    // The file schema already checked each option field; the catalog's schema has the last word on
    // the options as a whole (and fills in its defaults).
    const options = getFault(id).options.safeParse(own);
    if (!options.success) findings.push(...findingsFromIssues(options.error.issues, raw, ['faults', index]));
    return { index, id, match: { ...(match ?? {}) }, after_calls, times: times ?? null, options: options.success ? options.data : own };
  });

  let cost = 0;
  let wallClock: number | null = null;
  let destructive = false;
  for (const condition of file.abort) {
    if (condition === 'destructive_attempt') destructive = true;
    else if ('cost_usd_above' in condition) cost = condition.cost_usd_above;
    else wallClock = condition.wall_clock_s_above;
  }

  const candidate: Experiment = {
    name: file.name,
    description: file.description ?? '',
    // Only a task: the default profile starts the agent on it, so `chaos run` works on the file as it is.
    agent: file.agent ?? agentCommandFor(builtInProfile(DEFAULT_PROFILE_ID)!, file.task ?? '', file.mcp_servers),
    ...(file.task !== undefined ? { task: file.task } : {}),
    ...(file.mcp_servers !== undefined ? { mcp_servers: file.mcp_servers } : {}),
    verify: file.verify,
    repeat: file.repeat,
    faults,
    probes: file.probes.map((p) => {
      const value = (p as { value?: number }).value;
      return {
        id: p.id,
        weight: p.weight,
        ...(value !== undefined ? { value } : {}),
        ...(p.min_pass_rate !== undefined ? { min_pass_rate: p.min_pass_rate } : {}),
      };
    }),
    abort: { destructive_attempt: destructive, cost_usd_above: cost, wall_clock_s_above: wallClock },
    sandbox_image: file.sandbox_image ?? null,
  };
  if (findings.length > 0) return { findings };
  const checked = experimentSchema.safeParse(candidate);
  if (!checked.success) {
    // The file schema admits only what the model holds; reaching this is a bug in intutic, not in the file.
    findings.push({
      path: [],
      at: 'value',
      code: 'internal',
      message: `internal error: the normalized experiment does not fit the model (${checked.error.issues[0]?.message ?? 'unknown'}); this is a bug in intutic`,
    });
    return { findings };
  }
  return { experiment: checked.data, findings };
}
