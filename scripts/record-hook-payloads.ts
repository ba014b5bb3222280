// `npx tsx scripts/record-hook-payloads.ts [claude-code] [codex] [gemini]`: records the hook payloads
// the real agent binaries send, so that the gate's unit tests (libs/gates/test/*hook*.test.ts, through
// libs/gates/test/recorded.ts) are fed what the agents send rather than what we believe they send.
//
// Each agent runs in its image (intutic/agent-sandbox:<version>[-codex|-gemini], build them first with
// examples/agent-sandbox/build.ts), in a throwaway git project mounted at /work, driven by the scripted
// model: one shell command that exits 0 (`echo fine`), then one that exits 3 (`echo bad; exit 3`).
// The project's hook settings (as `intutic connect` writes them, but the command is a recorder) save
// every payload; an agent's transcript is saved beside the payload that names it. Written to
// libs/gates/test/fixtures/recorded/<agent>-<version>/: <hook event>-exit<0|3>.json, and for Codex the
// rollout as it was when the exit-3 PostToolUse ran (rollout.jsonl; the exit status lives there).
//
// A recording run is not a repetition: the container is started directly (`docker run`, not the
// product's sandbox), the image's managed hook levels are masked so that only the recorder runs, and
// HTTPS_PROXY points nowhere, so nothing but the scripted model on the bridge's gateway is reached.
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { agentImageTag, checkEngine, cliVersion, hostGatewayAddress } from '@intutic/sandbox';
import { codexConfig, geminiSettings, startScriptedModel, type ScriptInput } from '@intutic/testkit';

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(REPO_ROOT, 'libs/gates/test/fixtures/recorded');
const AGENTS = ['claude-code', 'codex', 'gemini'] as const;
type Agent = (typeof AGENTS)[number];

const SCRIPT: ScriptInput = {
  name: 'hook payloads: a command that exits 0, then one that exits 3',
  turns: [{ tool_calls: [{ shell: 'echo fine' }] }, { tool_calls: [{ shell: 'echo bad; exit 3' }] }, { text: 'done' }],
};

/** The hook command: save the payload (and the transcript it names) under /record, answer nothing but `{}`. */
const RECORDER = `const fs = require('fs');
const input = fs.readFileSync(0, 'utf8');
const name = '/record/' + process.hrtime.bigint();
fs.writeFileSync(name + '.json', input);
try { fs.copyFileSync(JSON.parse(input).transcript_path, name + '.transcript'); } catch {}
if (process.argv[2] === 'gemini') process.stdout.write('{}');
`;

const HOOK_EVENTS: Record<Agent, string[]> = {
  'claude-code': ['PreToolUse', 'PostToolUse', 'PostToolUseFailure'],
  codex: ['PreToolUse', 'PostToolUse'],
  gemini: ['BeforeTool', 'AfterTool'],
};
const SETTINGS_FILE: Record<Agent, string> = { 'claude-code': '.claude/settings.json', codex: '.codex/hooks.json', gemini: '.gemini/settings.json' };

function hookSettings(agent: Agent): string {
  const command = `node /record/recorder.cjs ${agent}`;
  const group = [{ matcher: '*', hooks: [{ type: 'command', command, timeout: 30 }] }];
  const hooks = Object.fromEntries(HOOK_EVENTS[agent].map((event) => [event, group]));
  return JSON.stringify(agent === 'gemini' ? { hooksConfig: { enabled: true }, hooks } : { hooks }, null, 2);
}

/** The shell run in the container, as the agent's user, from /work. */
function agentShell(agent: Agent, modelUrl: string): string {
  const prompt = 'Run the two commands.';
  if (agent === 'claude-code') return `claude -p "${prompt}" --allowedTools Bash`;
  if (agent === 'gemini') return `gemini -m gemini-2.5-pro --yolo -p "${prompt}"`;
  const config = `check_for_update_on_startup = false\n${codexConfig(modelUrl)}[analytics]\nenabled = false\n[features]\nhooks = true\nplugins = false\n[projects."/work"]\ntrust_level = "trusted"\n`;
  return `mkdir -p "$CODEX_HOME" && printf '%s' '${config}' > "$CODEX_HOME/config.toml" && codex exec --dangerously-bypass-approvals-and-sandbox --dangerously-bypass-hook-trust "${prompt}"`;
}

const docker = (args: string[]) => execFileSync('docker', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
/** The agent's run, asynchronous: the scripted model answering it lives in this process's event loop. */
const dockerRun = async (args: string[]): Promise<string> =>
  (await promisify(execFile)('docker', args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 600_000 })).stdout;

async function record(agent: Agent, gateway: string, modelUrl: string): Promise<void> {
  const image = agentImageTag(cliVersion()) + (agent === 'claude-code' ? '' : `-${agent}`);
  const version = /\d+\.\d+\.\d+/.exec(docker(['run', '--rm', '--entrypoint', agent === 'claude-code' ? 'claude' : agent, image, '--version']))?.[0];
  if (!version) throw new Error(`cannot read ${agent}'s version from ${image}`);
  const scratch = mkdtempSync(join(tmpdir(), `record-hooks-${agent}-`));
  try {
    const [project, recordDir] = [join(scratch, 'work'), join(scratch, 'record')];
    mkdirSync(join(project, dirname(SETTINGS_FILE[agent])), { recursive: true });
    mkdirSync(recordDir);
    writeFileSync(join(project, SETTINGS_FILE[agent]), hookSettings(agent));
    writeFileSync(join(recordDir, 'recorder.cjs'), RECORDER);
    writeFileSync(join(scratch, 'gemini-system.json'), geminiSettings());
    execFileSync('git', ['init', '-q', project]);
    execFileSync('git', ['-C', project, '-c', 'user.name=r', '-c', 'user.email=r@invalid', 'commit', '-q', '--allow-empty', '-m', 'start']);
    for (const dir of [scratch, project, recordDir]) chmodSync(dir, 0o777);
    execFileSync('chmod', ['-R', 'a+rwX', project]);
    const env = {
      ANTHROPIC_BASE_URL: modelUrl,
      ANTHROPIC_API_KEY: 'sk-ant-recording',
      OPENAI_API_KEY: 'sk-recording',
      GOOGLE_GEMINI_BASE_URL: modelUrl,
      GEMINI_API_KEY: 'gemini-recording',
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
      GEMINI_CLI_SYSTEM_SETTINGS_PATH: '/record-settings/gemini-system.json',
      CODEX_HOME: '/home/agent/.codex',
      HOME: '/home/agent',
      HTTPS_PROXY: 'http://127.0.0.1:9',
      HTTP_PROXY: 'http://127.0.0.1:9',
      NO_PROXY: gateway,
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'safe.directory',
      GIT_CONFIG_VALUE_0: '*',
    };
    // The image's managed hook levels (where the intutic gate itself may live) are masked.
    const masks = ['/etc/claude-code', '/etc/codex'].flatMap((dir) => ['--tmpfs', dir]);
    const envArgs = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    const mounts = ['-v', `${project}:/work`, '-v', `${recordDir}:/record`, '-v', `${scratch}/gemini-system.json:/record-settings/gemini-system.json:ro`];
    const shell = agentShell(agent, `${modelUrl}`);
    process.stderr.write(`[${agent} ${version}] recording in ${image}\n`);
    const run = ['run', '--rm', '--user', 'agent', '-w', '/work', ...masks, ...mounts, ...envArgs, '--entrypoint', 'bash', image, '-c', shell];
    process.stderr.write((await dockerRun(run)).slice(-2000));
    writeFixtures(agent, version, recordDir);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const kebab = (event: string) => event.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase();

/** <event>-exit<0|3>.json from the recorded payloads (the last of each), and Codex's rollout at the exit-3 outcome. */
function writeFixtures(agent: Agent, version: string, recordDir: string): void {
  const dir = join(OUT, `${agent}-${version}`);
  mkdirSync(dir, { recursive: true });
  const written: string[] = [];
  for (const file of readdirSync(recordDir)
    .filter((f) => /^\d+\.json$/.test(f))
    .sort()) {
    const payload = JSON.parse(readFileSync(join(recordDir, file), 'utf8')) as Record<string, unknown>;
    const command = String((payload.tool_input as { command?: unknown } | undefined)?.command ?? '');
    const exit = command.includes('exit 3') ? 3 : command === 'echo fine' ? 0 : null;
    if (exit === null) continue;
    const name = `${kebab(String(payload.hook_event_name))}-exit${exit}.json`;
    writeFileSync(join(dir, name), `${JSON.stringify(payload, null, 2)}\n`);
    written.push(name);
    const transcript = join(recordDir, file.replace(/\.json$/, '.transcript'));
    if (agent === 'codex' && exit === 3 && payload.hook_event_name === 'PostToolUse') {
      writeFileSync(join(dir, 'rollout.jsonl'), readFileSync(transcript, 'utf8'));
      written.push('rollout.jsonl');
    }
  }
  process.stderr.write(`[${agent} ${version}] wrote ${[...new Set(written)].join(', ')} in ${dir}\n`);
  if (written.length === 0) throw new Error(`${agent} ran no hook: nothing was recorded`);
}

const wanted = AGENTS.filter((a) => process.argv.length <= 2 || process.argv.includes(a));
const gateway = await hostGatewayAddress(await checkEngine({ env: process.env }));
const model = await startScriptedModel({ script: SCRIPT, host: gateway });
try {
  for (const agent of wanted) await record(agent, gateway, model.url);
} finally {
  await model.close();
}
