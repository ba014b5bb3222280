// `intutic demo --suite`: the shipped registry-down example, written once (its task:), under Claude
// Code, Codex and Gemini CLI as ONE `intutic chaos suite`, run twice — with a careful and with a
// careless scripted agent standing in for every provider — so each column shows the careful agent
// scored above the careless one. The scripts are the example's own, with their file writes made
// shell commands, which every agent has (Codex offers no Write tool).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { BuildProgressOptions, Engine } from '@intutic/sandbox';
import { cliVersion, ensureAgentImage, ensureCodexAgentImage, ensureGeminiAgentImage, withBuildProgress } from '@intutic/sandbox';
import { loadScript, startScriptedModel, type Script, type ScriptStep } from '@intutic/testkit';

type ScriptToolCall = NonNullable<ScriptStep['tool_calls']>[number];
import { scriptedRunEnv } from './chaos.ts';
import { GEMINI_MODEL } from './agents.ts';
import { registryDownFiles, scriptPath, type Temperament } from './examples.ts';
import { REPO_ROOT, runIntutic } from './intutic.ts';
import { createExampleProject, hostNpmRegistry } from './project.ts';

/** Codex and Gemini CLI with the models whose tools the scripted model offers (their defaults may not be). */
export const DEMO_SUITE = `name: demo-suite
experiments:
  - ${join(REPO_ROOT, 'examples', 'registry-down.yaml')}
profiles:
  - claude-code
  - { id: codex, agent: codex, model: gpt-5-codex }
  - { id: gemini-cli, agent: gemini-cli, model: ${GEMINI_MODEL} }
repetitions: 1
cost_ceiling_usd: 20
`;

const quote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * A Write call as the shell command that does the same, so one script plays every agent. printf,
 * not a heredoc: Gemini CLI wraps a command in `{ …; }`, which a heredoc's last line does not survive.
 */
function shellWrite(call: ScriptToolCall): ScriptToolCall {
  if (!('name' in call) || call.name !== 'Write') return call;
  const path = String(call.input.file_path);
  const lines = String(call.input.content).replace(/\n$/, '').split('\n');
  return { shell: `mkdir -p ${quote(dirname(path))} && printf '%s\\n' ${lines.map(quote).join(' ')} > ${quote(path)}` };
}

export function shellOnly(script: Script): Script {
  const step = <T extends { tool_calls?: ScriptToolCall[] | undefined }>(s: T): T => (s.tool_calls ? { ...s, tool_calls: s.tool_calls.map(shellWrite) } : s);
  return { ...script, turns: script.turns.map((turn) => ('when' in turn ? { ...turn, then: step(turn.then), else: step(turn.else) } : step(turn))) };
}

export interface SuiteDemoInput {
  docker: Engine;
  env: NodeJS.ProcessEnv;
  buildProgress: BuildProgressOptions;
  keep: boolean;
  say: (line: string) => void;
}

/** Runs the demo suite careful, then careless; resolves to the worse exit code of the two. */
export async function runSuiteDemo({ docker, env, buildProgress, keep, say }: SuiteDemoInput): Promise<number> {
  say("\n[demo suite 1/3] the three agents' images (built on first use; later runs reuse them)");
  const build = { version: cliVersion(), env };
  for (const ensure of [ensureAgentImage, ensureCodexAgentImage, ensureGeminiAgentImage])
    say(`${await withBuildProgress(buildProgress, (onProgress) => ensure(docker, { ...build, onProgress }))} is ready`);

  const root = mkdtempSync(join(tmpdir(), 'intutic-demo-suite-'));
  say(`\n[demo suite 2/3] a project to run it in: ${join(root, 'project')}`);
  const projectEnv: NodeJS.ProcessEnv = {
    ...env,
    INTUTIC_SNAPSHOT_RULES: join(root, 'policy', 'snapshot-rules.json'),
    INTUTIC_APPROVED_BYPASSES: join(root, 'policy', 'approved-bypasses.json'),
  };
  const project = await createExampleProject(join(root, 'project'), registryDownFiles(hostNpmRegistry()), projectEnv);
  const suiteFile = join(root, 'demo-suite.yaml');
  writeFileSync(suiteFile, DEMO_SUITE);

  const outBase = mkdtempSync(join(tmpdir(), 'intutic-chaos-demo-suite-'));
  let worst = 0;
  for (const temperament of ['careful', 'careless'] as Temperament[]) {
    say(`\n[demo suite 3/3] intutic chaos suite demo-suite.yaml — a ${temperament} scripted agent behind every provider`);
    const model = await startScriptedModel({ script: shellOnly(loadScript(scriptPath('registry-down', temperament))) });
    const run = await runIntutic(['chaos', 'suite', suiteFile, '--out', join(outBase, temperament)], {
      cwd: project.dir,
      env: scriptedRunEnv({ project, modelUrl: model.url }),
      onStdout: (text) => process.stdout.write(text),
      onStderr: (text) => process.stderr.write(text),
    }).finally(() => model.close());
    worst = Math.max(worst, run.code);
  }
  if (keep) say(`the project stays at ${project.dir} (--keep)`);
  else rmSync(root, { recursive: true, force: true });
  say(`\nthe two matrices: ${join(outBase, 'careful', 'suite-report.md')} and ${join(outBase, 'careless', 'suite-report.md')} (HTML beside them)`);
  return worst;
}
