// `npm run demo`: a real experiment end to end with no API key. It makes sure there is a container
// engine (scripts/setup/engine.sh when none answers; asked first only at a terminal), builds the
// images on first use with their progress shown, starts the scripted model in place of the provider,
// makes a small git project with the gates connected, runs `intutic chaos run` on the shipped
// registry-down example with real Claude Code (or, with --agent gemini, real Gemini CLI) in the
// sandbox, and prints the summary and report path.
// Redis is left to chaos run, which uses the one configured or running, or starts one.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { describeError } from '@intutic/errors';
import { checkEngine, type Engine, verboseBuildOutput, withBuildProgress } from '@intutic/sandbox';
import { loadScript, startScriptedModel } from '@intutic/testkit';
import { intuticHome } from '@intutic/workspace';
import { AGENT_TITLES, agentCommand, AGENTS, ensureExampleImage, type AgentName } from './agents.ts';
import { runExperiment, writeExperimentCopy } from './chaos.ts';
import { poisonedReadmeFiles, registryDownFiles, scriptPath, type ExampleName } from './examples.ts';
import { REPO_ROOT } from './intutic.ts';
import { createExampleProject, hostNpmRegistry } from './project.ts';
import { runSuiteDemo } from './suite.ts';

const { values } = parseArgs({
  options: {
    example: { type: 'string', default: 'registry-down' },
    agent: { type: 'string', default: 'claude' },
    careless: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
    suite: { type: 'boolean', default: false },
  },
});
const example = values.example as ExampleName;
const agent = AGENTS.find((name) => name === values.agent);
if ((example !== 'registry-down' && example !== 'poisoned-readme') || agent === undefined) {
  process.stderr.write(
    `usage: npm run demo [-- --example registry-down|poisoned-readme] [--agent ${AGENTS.join('|')}] [--careless] [--keep] [--verbose] [--suite]\n`,
  );
  process.exit(64);
}
const agentTitle = AGENT_TITLES[agent];
const PROVIDER: Record<AgentName, { api: string; key: string }> = {
  claude: { api: 'the Anthropic API', key: 'ANTHROPIC_API_KEY' },
  gemini: { api: "Google's Gemini API", key: 'GEMINI_API_KEY' },
};
const temperament = values.careless ? 'careless' : 'careful';
const say = (line: string): void => void process.stderr.write(`${line}\n`);
const step = (n: number, text: string): void => say(`\n[demo ${n}/5] ${text}`);

async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y/i.test((await rl.question(`${question} [y/N] `)).trim());
  } finally {
    rl.close();
  }
}

/** The engine that answers, or the one scripts/setup/engine.sh installs and starts. */
async function engine(): Promise<Engine> {
  try {
    return await checkEngine({ env: process.env });
  } catch (error) {
    say(`no container engine answers: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    const setup = join(REPO_ROOT, 'scripts', 'setup', 'engine.sh');
    if (process.stdin.isTTY && !(await confirm(`Install or start Docker with ${setup}? (it runs apt-get and dockerd; needs root)`))) {
      say('no engine, no sandbox: chaos run never runs an agent outside one. Start Docker or Podman and run the demo again.');
      process.exit(3);
    }
    const run = spawnSync('bash', [setup], { stdio: 'inherit' });
    if (run.status !== 0) {
      say(`${setup} failed (exit ${run.status}); start Docker or Podman yourself and run the demo again.`);
      process.exit(3);
    }
    return checkEngine({ env: process.env });
  }
}

/** Image settings: an offline base image when this machine has one (scripts/setup/engine.sh makes it), and this machine's CA bundle, so builds work behind a TLS-intercepting proxy. */
function imageEnv(engineHasLocalBase: boolean): NodeJS.ProcessEnv {
  const bundle = '/etc/ssl/certs/ca-certificates.crt';
  return {
    ...process.env,
    ...(!process.env.INTUTIC_SANDBOX_BASE_IMAGE && engineHasLocalBase ? { INTUTIC_SANDBOX_BASE_IMAGE: 'local/debian:bookworm' } : {}),
    ...(process.env.INTUTIC_EXTRA_CA_CERTS === undefined && existsSync(bundle) ? { INTUTIC_EXTRA_CA_CERTS: bundle } : {}),
  };
}

const started = Date.now();
say(
  values.suite
    ? 'intutic demo --suite: the three shipped examples under Claude Code, Codex and Gemini CLI as one suite, careful then careless scripted agents standing in for the models — no API key needed'
    : `intutic demo: ${example} through ${agentTitle}, with a ${temperament} scripted agent standing in for the model — no API key needed`,
);
if (!existsSync(join(REPO_ROOT, 'apps', 'cli', 'dist', 'intutic.mjs'))) {
  say('building the intutic CLI (npm run build)…');
  if (spawnSync(process.execPath, [join(REPO_ROOT, 'scripts', 'build.mjs')], { stdio: 'inherit' }).status !== 0) process.exit(3);
}

step(1, 'container engine');
const docker = await engine();
say(`${docker.kind} ${docker.version} at ${docker.endpoint}`);
const hasLocalBase = await docker.docker
  .getImage('local/debian:bookworm')
  .inspect()
  .then(
    () => true,
    () => false,
  );
const env = imageEnv(hasLocalBase);
if (values.suite) {
  const progress = { sink: process.stderr, logDir: join(intuticHome(env), 'logs'), prefix: '  ', verbose: verboseBuildOutput(env, values.verbose) };
  const code = await runSuiteDemo({ docker, env, buildProgress: progress, keep: values.keep, say });
  say(
    `\ndemo finished in ${((Date.now() - started) / 1000).toFixed(0)} s: exit ${code} (the careful suite's; the careless one's cells are meant to score low or abort)`,
  );
  process.exit(code);
}

step(2, 'sandbox images (built on first use; later runs reuse them)');
const buildProgress = { sink: process.stderr, logDir: join(intuticHome(env), 'logs'), prefix: '  ', verbose: verboseBuildOutput(env, values.verbose) };
const image = await withBuildProgress(buildProgress, (onProgress) => ensureExampleImage(agent, docker, { env, onProgress })).catch((error: unknown) => {
  const { text, exitCode } = describeError(error);
  say(text);
  process.exit(exitCode);
});
say(`${image} is ready`);

step(3, `the scripted model, in place of ${PROVIDER[agent].api}`);
const model = await startScriptedModel({ script: loadScript(scriptPath(example, temperament)) });
say(`scripted model listening on ${model.url} (script: examples/scripts/${example}.${temperament}.json)`);

const root = mkdtempSync(join(tmpdir(), 'intutic-demo-'));
step(4, `a project to run it in: ${join(root, 'project')}`);
// The demo's own policy snapshot, so your ~/.intutic/hooks is never touched.
const projectEnv: NodeJS.ProcessEnv = {
  ...env,
  INTUTIC_SNAPSHOT_RULES: join(root, 'policy', 'snapshot-rules.json'),
  INTUTIC_APPROVED_BYPASSES: join(root, 'policy', 'approved-bypasses.json'),
};
const files = example === 'registry-down' ? registryDownFiles(hostNpmRegistry()) : poisonedReadmeFiles();
const project = await createExampleProject(join(root, 'project'), files, projectEnv);
say(`git repository with ${Object.keys(files).join(', ')} committed; intutic policy init and intutic connect run in it`);

step(5, `intutic chaos run ${example}.yaml --sandbox-image ${image}  (repeat: 1 — one baseline, one faulted repetition)`);
const toAgent = (shipped: string): string => agentCommand(agent, shipped);
const experimentFile = writeExperimentCopy(example, join(root, `${example}.yaml`), { repeat: 1, agent: toAgent });
const reportPath = join(tmpdir(), 'intutic-chaos', `demo-${example}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
// What to run for real: the shipped example, or for Gemini CLI a copy of it with Gemini CLI's command, beside the report.
mkdirSync(dirname(reportPath), { recursive: true });
const realExperiment =
  agent === 'claude'
    ? join(REPO_ROOT, 'examples', `${example}.yaml`)
    : writeExperimentCopy(example, reportPath.replace(/\.json$/, `.${agent}.yaml`), { agent: toAgent });
const interrupt = (): void => undefined; // chaos run gets Ctrl-C itself and cancels its run
process.on('SIGINT', interrupt);
const { run, report } = await runExperiment({
  project,
  experimentFile,
  image,
  modelUrl: model.url,
  reportPath,
  onStdout: (text) => process.stdout.write(text),
  onStderr: (text) => process.stderr.write(text),
}).finally(() => model.close());
process.off('SIGINT', interrupt);

if (values.keep) say(`the project stays at ${project.dir} (--keep)`);
else rmSync(root, { recursive: true, force: true });
say(
  `\ndemo finished in ${((Date.now() - started) / 1000).toFixed(0)} s: chaos run exited ${run.code}${report ? ` (verdict ${report.verdict}, score ${report.score === null ? 'n/a' : Math.round(report.score * 10) / 10})` : ''}`,
);
if (report) say(`report: ${report.report_path}\nartifacts (events, agent output, proxy log per repetition): ${report.artifacts_dir}`);
say(
  [
    '',
    'The same experiment against the real provider, in your own project (a git repository with intutic connect run in it):',
    `  export ${PROVIDER[agent].key}=…      # stays on the host: the sandbox gets a stand-in, the run's proxy sends your key to ${PROVIDER[agent].api}`,
    `  intutic chaos run ${realExperiment} --sandbox-image ${image}`,
  ].join('\n'),
);
process.exit(run.code);
