// `intutic demo --suite`: the three shipped examples, each written once (its task:, and for
// poisoned-readme its mcp_servers:), under Claude Code, Codex and Gemini CLI as ONE `intutic chaos
// suite` of 3 × 3 cells, run twice — with careful and with careless scripted agents standing in for
// every provider — so each column shows the careful agent scored above the careless one. One scripted
// model plays every cell, choosing each example's script by the words of its task. The scripts are
// the examples' own, with their file writes made shell commands, which every agent has (Codex offers
// no Write tool). credential-revoked reaches a loopback stand-in for the GitHub API.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { EXIT } from '@intutic/errors';
import { shellQuote } from '@intutic/experiment';
import type { BuildProgressOptions, Engine } from '@intutic/sandbox';
import { cliVersion, ensureAgentImage, ensureCodexAgentImage, ensureGeminiAgentImage, withBuildProgress } from '@intutic/sandbox';
import { loadScript, startScriptedModel, type Script, type ScriptChoice, type ScriptStep } from '@intutic/testkit';
import { GEMINI_MODEL } from './agents.ts';
import { scriptedRunEnv, writeExperimentCopy } from './chaos.ts';
import { credentialRevokedFiles, poisonedReadmeFiles, registryDownFiles, scriptPath, type ExampleName, type Temperament } from './examples.ts';
import { startGithubFixture, writeProxyTrust } from './github.ts';
import { runIntutic } from './intutic.ts';
import { createExampleProject, hostNpmRegistry } from './project.ts';

type ScriptToolCall = NonNullable<ScriptStep['tool_calls']>[number];

/** The rows of the demo's matrix, each with words of its task that pick its script. */
const SUITE_EXAMPLES: { name: ExampleName; taskWords: string }[] = [
  { name: 'registry-down', taskWords: 'Add the lodash package' },
  { name: 'credential-revoked', taskWords: 'latest release of nodejs/node' },
  { name: 'poisoned-readme', taskWords: 'three-line summary' },
];

/** The careless credential-revoked agent retries until this wall clock stops it. */
const RETRY_WALL_CLOCK_S = 30;

/** Codex and Gemini CLI with the models whose tools the scripted model offers (their defaults may not be). */
function demoSuite(experimentFiles: string[]): string {
  return [
    'name: demo-suite',
    'experiments:',
    ...experimentFiles.map((file) => `  - ${file}`),
    'profiles:',
    '  - claude-code',
    '  - { id: codex, agent: codex, model: gpt-5-codex }',
    `  - { id: gemini-cli, agent: gemini-cli, model: ${GEMINI_MODEL} }`,
    'repetitions: 1',
    'cost_ceiling_usd: 20',
    '',
  ].join('\n');
}

/**
 * A Write call as the shell command that does the same, so one script plays every agent. printf,
 * not a heredoc: Gemini CLI wraps a command in `{ …; }`, which a heredoc's last line does not survive.
 */
function shellWrite(call: ScriptToolCall): ScriptToolCall {
  if (!('name' in call) || call.name !== 'Write') return call;
  const path = String(call.input.file_path);
  const lines = String(call.input.content).replace(/\n$/, '').split('\n');
  return { shell: `mkdir -p ${shellQuote(dirname(path))} && printf '%s\\n' ${lines.map(shellQuote).join(' ')} > ${shellQuote(path)}` };
}

/** The script with every tool call, in every turn and branch, passed through `change`. */
function mapToolCalls(script: Script, change: (call: ScriptToolCall) => ScriptToolCall): Script {
  const step = <T extends { tool_calls?: ScriptToolCall[] | undefined }>(s: T): T => (s.tool_calls ? { ...s, tool_calls: s.tool_calls.map(change) } : s);
  return { ...script, turns: script.turns.map((turn) => ('when' in turn ? { ...turn, then: step(turn.then), else: step(turn.else) } : step(turn))) };
}

export function shellOnly(script: Script): Script {
  return mapToolCalls(script, shellWrite);
}

/** The stand-in GitHub's CA, trusted by curl beside the system's (which holds the run's own CA). */
const TRUST_STAND_IN = 'cat /etc/ssl/certs/ca-certificates.crt /work/.fixture/github-ca.pem > "$HOME/ca.pem" && CURL_CA_BUNDLE="$HOME/ca.pem"';

/** The script with each curl call trusting the stand-in GitHub (the scripted agent knows it is one). */
function trustingStandIn(script: Script): Script {
  return mapToolCalls(script, (c) => ('shell' in c && /^curl\s/.test(c.shell) ? { shell: `${TRUST_STAND_IN} ${c.shell}` } : c));
}

/** One scripted model for the whole suite: each example's script, chosen by its task's words. */
function scriptChoices(temperament: Temperament): ScriptChoice[] {
  return SUITE_EXAMPLES.map(({ name, taskWords }) => {
    const script = shellOnly(loadScript(scriptPath(name, temperament)));
    return { when_request_contains: taskWords, script: name === 'credential-revoked' ? trustingStandIn(script) : script };
  });
}

export interface SuiteDemoInput {
  docker: Engine;
  env: NodeJS.ProcessEnv;
  buildProgress: BuildProgressOptions;
  keep: boolean;
  say: (line: string) => void;
}

/** Runs the demo suite careful, then careless; resolves to the careful suite's exit code, or the careless one's when it could not run. */
export async function runSuiteDemo({ docker, env, buildProgress, keep, say }: SuiteDemoInput): Promise<number> {
  say("\n[demo suite 1/3] the three agents' images (built on first use; later runs reuse them)");
  const build = { version: cliVersion(), env };
  for (const ensure of [ensureAgentImage, ensureCodexAgentImage, ensureGeminiAgentImage])
    say(`${await withBuildProgress(buildProgress, (onProgress) => ensure(docker, { ...build, onProgress }))} is ready`);

  const root = mkdtempSync(join(tmpdir(), 'intutic-demo-suite-'));
  const github = await startGithubFixture();
  try {
    say(`\n[demo suite 2/3] a project to run it in: ${join(root, 'project')}`);
    const projectEnv: NodeJS.ProcessEnv = {
      ...env,
      INTUTIC_SNAPSHOT_RULES: join(root, 'policy', 'snapshot-rules.json'),
      INTUTIC_APPROVED_BYPASSES: join(root, 'policy', 'approved-bypasses.json'),
      // The repetitions' proxies verify the stand-in GitHub's certificate like any upstream's.
      NODE_EXTRA_CA_CERTS: writeProxyTrust(root, github.caPem),
    };
    // One project for the three rows: poisoned-readme's README is the one there is to summarize.
    const files = { ...registryDownFiles(hostNpmRegistry()), ...credentialRevokedFiles(github.caPem), ...poisonedReadmeFiles() };
    const project = await createExampleProject(join(root, 'project'), files, projectEnv);
    // The shipped examples as they are, but for one repetition per phase and a short wall clock for the careless retrier.
    const experiments = SUITE_EXAMPLES.map(({ name }) =>
      writeExperimentCopy(name, join(root, `${name}.yaml`), { repeat: 1, ...(name === 'credential-revoked' ? { wallClockS: RETRY_WALL_CLOCK_S } : {}) }),
    );
    const suiteFile = join(root, 'demo-suite.yaml');
    writeFileSync(suiteFile, demoSuite(experiments));

    const outBase = mkdtempSync(join(tmpdir(), 'intutic-chaos-demo-suite-'));
    let worst = 0;
    for (const temperament of ['careful', 'careless'] as Temperament[]) {
      say(`\n[demo suite 3/3] intutic chaos suite demo-suite.yaml — a ${temperament} scripted agent behind every provider`);
      const choices = scriptChoices(temperament);
      // Every request carries one of the tasks; the first script only answers one that carries none.
      const model = await startScriptedModel({ script: choices[0]!.script, choices });
      const run = await runIntutic(['chaos', 'suite', suiteFile, '--out', join(outBase, temperament)], {
        cwd: project.dir,
        env: scriptedRunEnv({ project, modelUrl: model.url, proxyArgs: github.resolveArgs }),
        onStdout: (text) => process.stdout.write(text),
        onStderr: (text) => process.stderr.write(text),
      }).finally(() => model.close());
      // The careless agent's cells are meant to end aborted (exit 1); anything worse is the demo's failure.
      worst = Math.max(worst, temperament === 'careless' && run.code === EXIT.aborted ? EXIT.ok : run.code);
    }
    if (keep) say(`the project stays at ${project.dir} (--keep)`);
    say(`\nthe two matrices: ${join(outBase, 'careful', 'suite-report.md')} and ${join(outBase, 'careless', 'suite-report.md')} (HTML beside them)`);
    return worst;
  } finally {
    await github.close();
    if (!keep) rmSync(root, { recursive: true, force: true });
  }
}
