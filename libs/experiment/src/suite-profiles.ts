// A suite's profiles (issue 37): the mapping that defines one (inline in the suite, or in the suite's
// profiles file), and the profiles file itself. A profiles file (`profiles_file:`, relative to the
// suite) lists mappings under `profiles:`, so a team writes its own profiles once and every suite
// names them by id like the built-in ones. Its problems are reported at its own file:line.
import { dirname, isAbsolute, join, relative } from 'node:path';
import { z } from 'zod';
import { formatPath, type Diagnostic, type Finding } from './diagnostics.ts';
import { readExperimentFile } from './load.ts';
import { EXPERIMENT_NAME_PATTERN } from './model.ts';
import { builtInProfile, BUILT_IN_PROFILES, PROFILE_AGENTS, profileAgentKind, type Profile } from './profiles.ts';
import { mcpServersSchema } from './mcp-servers.ts';
import { locate, parseYamlSource } from './source.ts';

/** One profile as a mapping: the same shape inline in a suite's `profiles:` and in a profiles file. */
export const profileMapping = z.strictObject({
  id: z.string().regex(EXPERIMENT_NAME_PATTERN, 'must be lowercase letters, digits and hyphens'),
  agent: z.enum(PROFILE_AGENTS),
  model: z.string().min(1).optional(),
  args: z.string().min(1).optional(),
  image: z.string().min(1).optional(),
  mcp_servers: mcpServersSchema.optional(),
});
export type ProfileMapping = z.infer<typeof profileMapping>;

export const profilesFileSchema = z.strictObject({ profiles: z.array(profileMapping).min(1) });

/** The profile a mapping defines, or what is wrong with it. */
export function profileFromMapping(entry: ProfileMapping): Profile | string {
  const profile: Profile = {
    id: entry.id,
    agent: entry.agent,
    model: entry.model ?? null,
    args: entry.args ?? null,
    image: entry.image ?? null,
    mcp_servers: entry.mcp_servers ?? {},
  };
  if (profile.agent === 'command') {
    if (entry.mcp_servers)
      return `profile "${profile.id}": agent: command starts its agent exactly as args say, so it cannot be handed mcp_servers; start them in args`;
    if (!profile.args?.includes('{task}')) return `profile "${profile.id}": agent: command needs args, the command line with {task} where the prompt goes`;
    if (profile.image === null && profileAgentKind(profile) === null)
      return `profile "${profile.id}": agent: command starts none of the shipped agents, so give the image that has it`;
  }
  return profile;
}

export interface ProfilesFile {
  /** The file as the suite reaches it (relative to the current directory when the suite path is). */
  shown: string;
  /** Where it is, for telling it apart from the experiments a glob matches. */
  path: string;
  /** False when the file could not be read or parsed; its error is reported at the suite's line or its own. */
  read: boolean;
  /** Each id the file defines: its profile, or null when that entry has errors (reported at the file's line). */
  profiles: Map<string, Profile | null>;
}

const builtInIds = () => BUILT_IN_PROFILES.map((p) => p.id).join(', ');

/** A suite's string entry: a built-in profile, else one of the profiles file's, else why not. */
export function profileById(id: string, file: ProfilesFile | undefined): Profile | string {
  const builtIn = builtInProfile(id);
  if (builtIn) return builtIn;
  const fromFile = file?.profiles.get(id);
  if (fromFile) return fromFile;
  if (file && fromFile === null) return `profile "${id}" in ${file.shown} has errors (reported at its line)`;
  const others = !file
    ? 'there is no profiles_file'
    : !file.read
      ? `the profiles file ${file.shown} could not be read (reported separately)`
      : `the profiles file ${file.shown} defines ${[...file.profiles.keys()].join(', ') || 'none'}`;
  return `unknown profile "${id}": the built-in ones are ${builtInIds()}; ${others}; define others as a mapping (id, agent, model, args, image) here or in a profiles file (profiles_file:)`;
}

/**
 * Read and check the suite's profiles file. A file that cannot be read is an error at the suite's
 * `profiles_file` line (`atSuite`); everything wrong inside it, at the file's own line:column.
 */
export async function readProfilesFile(
  suiteFile: string,
  name: string,
  atSuite: (finding: Finding) => Diagnostic,
  errors: Diagnostic[],
): Promise<ProfilesFile> {
  const dir = dirname(suiteFile);
  const path = isAbsolute(name) ? name : join(dir, name);
  const shown = isAbsolute(suiteFile) ? path : relative('.', path);
  const file: ProfilesFile = { shown, path, read: false, profiles: new Map() };
  const input = await readExperimentFile(path);
  if ('error' in input) {
    const reason = input.error.code === 'not-a-file' ? 'is not a regular file' : input.error.message.replace(/; .*$/, '');
    const message = `profiles_file ${shown}: ${reason}; give the path (relative to the suite file's directory ${dir}) of a YAML file that lists profiles: as mappings, or leave profiles_file out`;
    errors.push(atSuite({ path: ['profiles_file'], at: 'value', code: 'profiles-file-unreadable', message }));
    return file;
  }
  const source = parseYamlSource(input.text);
  if (source.errors.length > 0) {
    errors.push(...source.errors.map((e) => ({ file: shown, ...e })));
    return file;
  }
  const at = (finding: Finding): Diagnostic => ({ file: shown, ...locate(source, finding), message: finding.message, code: finding.code });
  const data: unknown = source.doc.toJS({ maxAliasCount: 100 });
  const parsed = profilesFileSchema.safeParse(data);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const path = issue.path.map((s) => (typeof s === 'number' ? s : String(s)));
      const where = path.length > 0 ? `${formatPath(path)}: ` : '';
      errors.push(at({ path, at: 'value', code: 'invalid-profiles-file', message: `${where}${issue.message}` }));
    }
  }
  file.read = true;
  const entries: unknown[] =
    data && typeof data === 'object' && Array.isArray((data as { profiles?: unknown }).profiles) ? (data as { profiles: unknown[] }).profiles : [];
  entries.forEach((entry, index) => {
    const id = entry && typeof entry === 'object' ? (entry as { id?: unknown }).id : undefined;
    if (typeof id !== 'string') return;
    const where = { path: ['profiles', index, 'id'], at: 'value' as const };
    if (builtInProfile(id)) {
      const message = `profile "${id}" is a built-in profile's id (${builtInIds()}): a profiles file cannot redefine it; give yours an id of its own`;
      errors.push(at({ ...where, code: 'shadowed-profile', message }));
    } else if (file.profiles.has(id)) {
      errors.push(at({ ...where, code: 'duplicate-profile', message: `duplicate profile "${id}": each profile in ${shown} has its own id` }));
    } else {
      const mapping = profileMapping.safeParse(entry);
      // A mapping the schema refused is reported above; the id is still known, so the suite says where to look.
      const profile = mapping.success ? profileFromMapping(mapping.data) : null;
      if (typeof profile === 'string') errors.push(at({ path: ['profiles', index], at: 'value', code: 'invalid-profile', message: profile }));
      file.profiles.set(id, typeof profile === 'string' ? null : profile);
    }
  });
  return file;
}
