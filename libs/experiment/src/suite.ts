// The suite file (issue 37): which experiments (files or globs, relative to the suite file) run under
// which profiles, how often, and the cost ceiling of the whole suite. Validation reads the suite and
// every experiment it names and reports every problem at once, each as file:line:column; only a
// suite without errors expands into its cells (experiment × profile), each an ordinary Experiment.
// Profiles a team shares live in a profiles file (suite-profiles.ts), named by id like the built-ins.
import { readdir } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { z } from 'zod';
import { agentKindOf } from './agent-kind.ts';
import { formatPath, type Diagnostic, type Finding } from './diagnostics.ts';
import { readExperimentFile } from './load.ts';
import { MAX_COST_USD } from './limits.ts';
import { EXPERIMENT_NAME_PATTERN, type Experiment } from './model.ts';
import { agentCommandFor, type Profile } from './profiles.ts';
import { locate, parseYamlSource } from './source.ts';
import { profileById, profileFromMapping, profileMapping, readProfilesFile, type ProfilesFile } from './suite-profiles.ts';
import { validateExperimentFile, type ValidateDeps } from './validate.ts';

const profileEntry = z.union([z.string().min(1), profileMapping]);

export const suiteFileSchema = z.strictObject({
  name: z.string().regex(EXPERIMENT_NAME_PATTERN, 'must be lowercase letters, digits and hyphens'),
  experiments: z.array(z.string().min(1)).min(1),
  profiles: z.array(profileEntry).min(1),
  /** More profiles, defined once for many suites: a YAML file (relative to the suite) of `profiles:` mappings. */
  profiles_file: z.string().min(1).optional(),
  repetitions: z.int().min(1).max(20).optional(),
  cost_ceiling_usd: z
    .number()
    .positive()
    .max(MAX_COST_USD * 100),
});
type SuiteFile = z.infer<typeof suiteFileSchema>;

export interface SuiteExperimentEntry {
  /** The path as the suite reaches it (relative to the current directory when the suite path is). */
  file: string;
  experiment: Experiment;
}

export interface SuiteCellPlan {
  experiment: string;
  profile: string;
  /** The experiment with the profile's agent command (and image), ready for an ordinary run. */
  run: Experiment;
}

export interface Suite {
  name: string;
  file: string;
  repetitions: number | null;
  cost_ceiling_usd: number;
  profiles: Profile[];
  experiments: SuiteExperimentEntry[];
  cells: SuiteCellPlan[];
}

export interface SuiteValidation {
  suite?: Suite;
  errors: Diagnostic[];
  warnings: Diagnostic[];
}

/** `*` and `?` in the last path segment only; a pattern that matches nothing is an error of its own. */
async function expandPattern(dir: string, pattern: string): Promise<string[] | undefined> {
  const full = isAbsolute(pattern) ? pattern : join(dir, pattern);
  const name = basename(full);
  if (!/[*?]/.test(name)) return [full];
  const regex = new RegExp(
    `^${name
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '[^/]*')
      .replace(/\?/g, '[^/]')}$`,
  );
  try {
    const names = (await readdir(dirname(full))).filter((n) => regex.test(n)).sort();
    return names.map((n) => join(dirname(full), n));
  } catch {
    return undefined;
  }
}

/** The run of one cell: the profile's agent on the experiment's task, in the profile's image. */
export function cellExperiment(experiment: Experiment, profile: Profile, repetitions: number | null): Experiment {
  return {
    ...experiment,
    agent: agentCommandFor(profile, experiment.task ?? '', experiment.mcp_servers),
    ...(repetitions !== null ? { repeat: repetitions } : {}),
    sandbox_image: profile.image ?? experiment.sandbox_image,
  };
}

type At = (finding: Finding) => Diagnostic;

/** A `command` profile cannot hand an experiment's MCP servers to its agent: each such pair, at the profile. */
function unservedTasks(profiles: Profile[], entries: SuiteFile['profiles'], rows: SuiteExperimentEntry[], at: At): Diagnostic[] {
  return profiles.flatMap((profile) => {
    if (profile.agent !== 'command') return [];
    const index = entries.findIndex((entry) => (typeof entry === 'string' ? entry : entry.id) === profile.id);
    return rows
      .filter(({ experiment }) => Object.keys(experiment.mcp_servers ?? {}).length > 0)
      .map(({ file, experiment }) =>
        at({
          path: ['profiles', index],
          at: 'value',
          code: 'profile-mismatch',
          message: `profile "${profile.id}" (agent: command) cannot hand ${file}'s MCP servers (${Object.keys(experiment.mcp_servers ?? {}).join(', ')}) to its agent; use a shipped agent's profile, or leave ${experiment.name} out of this suite`,
        }),
      );
  });
}

function readProfiles(entries: SuiteFile['profiles'], file: ProfilesFile | undefined, at: At, errors: Diagnostic[]): Profile[] {
  const profiles: Profile[] = [];
  entries.forEach((entry, index) => {
    const profile = typeof entry === 'string' ? profileById(entry, file) : profileFromMapping(entry);
    const where = { path: ['profiles', index], at: 'value' as const };
    if (typeof profile === 'string') errors.push(at({ ...where, code: 'invalid-profile', message: profile }));
    else if (profiles.some((p) => p.id === profile.id))
      errors.push(at({ ...where, code: 'duplicate-profile', message: `duplicate profile "${profile.id}": each column of the matrix has its own id` }));
    else profiles.push(profile);
  });
  return profiles;
}

/** Why an experiment that validated cannot be a row of this suite, or null. */
function rowProblem(experiment: Experiment, shown: string, rows: SuiteExperimentEntry[]): [string, string] | null {
  if (experiment.task === undefined) {
    const kind = agentKindOf(experiment.agent);
    const pinned = kind ? ` (its agent: command starts ${kind} only)` : '';
    return [
      `${shown} gives no task:${pinned}; a suite runs each experiment under every profile, so give the prompt as task: instead of agent:`,
      'profile-mismatch',
    ];
  }
  if (rows.some((e) => e.experiment.name === experiment.name))
    return [`${shown}: another experiment of the suite is also named "${experiment.name}"; each row of the matrix has its own name`, 'duplicate-experiment'];
  return null;
}

async function readExperiments(
  file: string,
  patterns: string[],
  profilesFile: ProfilesFile | undefined,
  deps: ValidateDeps,
  at: At,
  out: { errors: Diagnostic[]; warnings: Diagnostic[] },
) {
  const rows: SuiteExperimentEntry[] = [];
  const dir = dirname(file);
  for (const [index, pattern] of patterns.entries()) {
    const finding = (message: string, code: string) => at({ path: ['experiments', index], at: 'value', code, message });
    // The suite file and its profiles file are no experiments, though a glob next to them (`*.yaml`) matches them.
    const notExperiments = [file, ...(profilesFile ? [profilesFile.path] : [])].map((p) => resolve(p));
    const paths = (await expandPattern(dir, pattern))?.filter((p) => !notExperiments.includes(resolve(p)));
    if (!paths || paths.length === 0) {
      out.errors.push(finding(`"${pattern}" matches no experiment file (relative to ${dir})`, 'no-experiment'));
      continue;
    }
    for (const path of paths) {
      const shown = isAbsolute(file) ? path : relative('.', path);
      const result = await validateExperimentFile(path, deps);
      // The experiment's own problems keep their own file:line; the suite line says which entry led there.
      out.errors.push(...result.errors.map((d) => ({ ...d, file: shown })));
      out.warnings.push(...result.warnings.map((d) => ({ ...d, file: shown })));
      if (!result.experiment) {
        if (result.errors.length > 0) out.errors.push(finding(`${shown} has errors (above)`, 'experiment-invalid'));
        continue;
      }
      const problem = rowProblem(result.experiment, shown, rows);
      if (problem) out.errors.push(finding(...problem));
      else rows.push({ file: shown, experiment: result.experiment });
    }
  }
  return rows;
}

export async function validateSuiteText(text: string, file: string, deps: ValidateDeps): Promise<SuiteValidation> {
  const source = parseYamlSource(text);
  const at: At = (finding) => ({ file, ...locate(source, finding), message: finding.message, code: finding.code });
  if (source.errors.length > 0) return { errors: source.errors.map((e) => ({ file, ...e })), warnings: [] };
  const parsed = suiteFileSchema.safeParse(source.doc.toJS({ maxAliasCount: 100 }));
  if (!parsed.success) {
    const errors = parsed.error.issues.map((issue) => {
      const path = issue.path.map((s) => (typeof s === 'number' ? s : String(s)));
      const where = path.length > 0 ? `${formatPath(path)}: ` : '';
      return at({ path, at: 'value', code: 'invalid-suite', message: `${where}${issue.message}` });
    });
    return { errors, warnings: [] };
  }
  const data = parsed.data;
  const out = { errors: [] as Diagnostic[], warnings: [] as Diagnostic[] };
  const profilesFile = data.profiles_file === undefined ? undefined : await readProfilesFile(file, data.profiles_file, at, out.errors);
  const profiles = readProfiles(data.profiles, profilesFile, at, out.errors);
  const experiments = await readExperiments(file, data.experiments, profilesFile, deps, at, out);
  out.errors.push(...unservedTasks(profiles, data.profiles, experiments, at));
  if (out.errors.length > 0) return out;
  const repetitions = data.repetitions ?? null;
  const cells = experiments.flatMap(({ experiment }) =>
    profiles.map((profile) => ({ experiment: experiment.name, profile: profile.id, run: cellExperiment(experiment, profile, repetitions) })),
  );
  return { suite: { name: data.name, file, repetitions, cost_ceiling_usd: data.cost_ceiling_usd, profiles, experiments, cells }, ...out };
}

/** Read and validate a suite file and every experiment it names; never throws on bad input. */
export async function validateSuiteFile(path: string, deps: ValidateDeps): Promise<SuiteValidation> {
  const input = await readExperimentFile(path);
  if ('error' in input) return { errors: [{ ...input.error, file: path }], warnings: [] };
  return validateSuiteText(input.text, path, deps);
}
