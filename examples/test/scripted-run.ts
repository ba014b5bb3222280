// A chaos run of an experiment against the scripted model: what five end-to-end files did each in
// the same nine lines (start the model, run, close it, say how it ended, fail when no report).
import { join } from 'node:path';
import type { Report } from '@intutic/report';
import { startScriptedModel, type ScriptedModel, type ScriptInput } from '@intutic/testkit';
import { runExperiment, type ExperimentRunInput } from '../demo/src/chaos.ts';

export interface ScriptedRunInput {
  project: ExperimentRunInput['project'];
  experimentFile: string;
  image?: string;
  /** What the model answers, turn by turn. */
  script: ScriptInput;
  /** Where the report is written (`report.json` in it). */
  root: string;
  /** Names the run in the progress line and the error, e.g. `[blocked codex]`. */
  tag: string;
}

export interface ScriptedRun {
  run: Awaited<ReturnType<typeof runExperiment>>['run'];
  report: Report;
  /** Closed; its recorded requests stay readable. */
  model: ScriptedModel;
}

/** Run the experiment against a scripted model; throws, with the run's output, when it wrote no report. */
export async function runScripted(input: ScriptedRunInput): Promise<ScriptedRun> {
  const model = await startScriptedModel({ script: input.script });
  const started = Date.now();
  const { run, report } = await runExperiment({
    project: input.project,
    experimentFile: input.experimentFile,
    image: input.image,
    modelUrl: model.url,
    reportPath: join(input.root, 'report.json'),
    timeoutMs: 600_000,
  }).finally(() => model.close());
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  process.stderr.write(`${input.tag} exit ${run.code}, ${report?.verdict} (${report?.verdict_reason}), ${seconds} s\n`);
  if (!report) throw new Error(`${input.tag} no report (exit ${run.code}):\n${run.stdout.slice(-2000)}${run.stderr.slice(-4000)}`);
  return { run, report, model };
}
