// One `intutic chaos run` of an example experiment against the scripted model: every repetition's
// proxy sends model calls there (INTUTIC_CHAOS_PROXY_ARGS becomes `intutic start --upstream-anthropic
// … --upstream-openai … --upstream-gemini …`), the agent gets stand-in keys by name, and the JSON report is read back.
// With a real provider key none of this is needed (see examples/demo/README.md).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import { IntuticError } from '@intutic/errors';
import { reportSchema, type Report } from '@intutic/report';
import { runIntutic, REPO_ROOT, type IntuticRun } from './intutic.ts';
import type { ExampleProject } from './project.ts';

/** The worker's keys; the scripted model accepts any. The sandbox gets stand-ins, the proxy sends these upstream. */
export const SCRIPTED_MODEL_KEYS = { ANTHROPIC_API_KEY: 'sk-ant-scripted-model', OPENAI_API_KEY: 'sk-scripted-model', GEMINI_API_KEY: 'gemini-scripted-model' };

export interface ExperimentEdits {
  repeat?: number;
  wallClockS?: number;
  /** Replace the agent command (a test fixture may need a step before the agent). */
  agent?: (shipped: string) => string;
}

/** Copy a shipped example to `to` with a few fields changed; comments and placeholders stay as they are. */
export function writeExperimentCopy(example: string, to: string, edits: ExperimentEdits): string {
  const doc = parseDocument(readFileSync(`${REPO_ROOT}/examples/${example}.yaml`, 'utf8'));
  if (edits.repeat !== undefined) doc.set('repeat', edits.repeat);
  if (edits.agent) doc.set('agent', edits.agent(String(doc.get('agent'))));
  if (edits.wallClockS !== undefined) {
    const abort = (doc.toJS() as { abort: unknown[] }).abort;
    const at = abort.findIndex((c) => typeof c === 'object' && c !== null && 'wall_clock_s_above' in c);
    if (at < 0)
      throw new IntuticError('E_EXPERIMENT_INVALID', `${example}.yaml has no wall_clock_s_above to change`, {
        hints: [`add \`- wall_clock_s_above: <seconds>\` under abort: in examples/${example}.yaml`],
      });
    doc.setIn(['abort', at, 'wall_clock_s_above'], edits.wallClockS);
  }
  writeFileSync(to, doc.toString());
  return to;
}

export interface ExperimentRunInput {
  project: ExampleProject;
  experimentFile: string;
  /** Passed as --sandbox-image; without it the run picks the image itself (the shipped agent's). */
  image?: string;
  /** Where the run's proxies send Anthropic, OpenAI and Gemini calls: the scripted model's URL. */
  modelUrl: string;
  reportPath: string;
  /** More `intutic start` arguments for every repetition's proxy, e.g. ['--resolve', 'host=addr:port']. */
  proxyArgs?: string[];
  onStdout?: (text: string) => void;
  onStderr?: (text: string) => void;
  timeoutMs?: number;
}

export interface ExperimentRun {
  run: IntuticRun;
  /** The JSON report, when the run wrote one. */
  report: Report | null;
}

export function scriptedRunEnv(input: Pick<ExperimentRunInput, 'project' | 'modelUrl' | 'proxyArgs'>): NodeJS.ProcessEnv {
  return {
    ...input.project.env,
    ...SCRIPTED_MODEL_KEYS,
    INTUTIC_CHAOS_PROXY_ARGS: JSON.stringify([
      '--upstream-anthropic',
      input.modelUrl,
      '--upstream-openai',
      input.modelUrl,
      '--upstream-gemini',
      input.modelUrl,
      ...(input.proxyArgs ?? []),
    ]),
  };
}

export async function runExperiment(input: ExperimentRunInput): Promise<ExperimentRun> {
  const image = input.image ? ['--sandbox-image', input.image] : [];
  const run = await runIntutic(['chaos', 'run', input.experimentFile, ...image, '--out', input.reportPath], {
    cwd: input.project.dir,
    env: scriptedRunEnv(input),
    ...(input.onStdout ? { onStdout: input.onStdout } : {}),
    ...(input.onStderr ? { onStderr: input.onStderr } : {}),
    ...(input.timeoutMs !== undefined ? { timeoutMs: input.timeoutMs } : {}),
  });
  const report = existsSync(input.reportPath) ? reportSchema.parse(JSON.parse(readFileSync(input.reportPath, 'utf8'))) : null;
  return { run, report };
}
