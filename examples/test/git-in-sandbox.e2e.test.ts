// git in a repetition with the real agents: one `intutic chaos run` each for Claude Code, Codex and
// Gemini CLI, whose scripted model has them look at the repository through their own shell tool
// (Claude Code's Bash, Codex's exec_command, Gemini CLI's run_shell_command, which runs git with
// its own GIT_CONFIG_* entries) — `git status`, `git diff`, `git log` — then create a branch, edit
// README.md and commit it there; verify checks that commit with git. A fail-safe fault fires (the
// proxy answers the first model call with a 429), so the run is scored. The test reads each git
// command's result as the scripted model received it, and hashes the project's .git (but its index)
// before and after: its refs, objects, config and hooks are byte for byte what they were. The project
// plants a remote and a post-commit hook that must not reach the sandbox.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { Report } from '@intutic/report';
import { checkEngine, cliVersion, ensureCodexAgentImage, ensureGeminiAgentImage } from '@intutic/sandbox';
import {
  readAnthropic,
  readGemini,
  readResponses,
  sandboxBuildEnv,
  type RecordedRequest,
  type ScriptInput,
  type ScriptedModel,
  gitDirHash,
} from '@intutic/testkit';
import type { ExampleProject } from '../demo/src/project.ts';
import { isObject, shellExchanges, type Exchange, type ShellApi } from './agent-exchanges.ts';
import { agentImage, events, repetition, testProject } from './support.ts';
import { e2eFile } from './e2e-file.ts';
import { runScripted } from './scripted-run.ts';

const e2e = await e2eFile('git', 'git in the sandbox with real agents');

type Agent = 'claude-code' | 'codex' | 'gemini';

const BRANCH = 'agent-branch';
const SUBJECT = 'agent: note the git check';
const NOTE = 'Checked with git in the sandbox.';
const PLANTED_REMOTE = 'https://git.example.invalid/planted-remote/project.git';
const PLANTED_HOOK_OUTPUT = 'planted-hook-ran';
/** One shell word in double quotes: no double quote, $ or backtick inside. */
const PROMPT = `Look at the repository with git, add the line '${NOTE}' to README.md and commit it on a new branch ${BRANCH}.`;

/** What the agent runs, in order, one shell call per turn: the same script plays every agent. */
const STEPS = [
  { key: 'status', text: 'First, the state of the repository.', command: 'git status' },
  { key: 'diff', text: 'Any uncommitted changes?', command: 'git diff' },
  { key: 'log', text: 'The history.', command: 'git log --oneline' },
  { key: 'branch', text: 'A branch of my own.', command: `git switch -c ${BRANCH}` },
  { key: 'edit', text: 'Adding the note.', command: `printf '\\n${NOTE}\\n' >> README.md` },
  { key: 'diffAfter', text: 'The change.', command: 'git diff' },
  { key: 'commit', text: 'Committing it.', command: `git add README.md && git commit -m '${SUBJECT}'` },
  { key: 'logAfter', text: 'The commit on top of the history.', command: 'git log --oneline -n 3' },
  { key: 'statusAfter', text: 'And the tree is clean again.', command: 'git status' },
] as const;
type StepKey = (typeof STEPS)[number]['key'];

const SCRIPT: ScriptInput = {
  name: 'git in the sandbox: look at the repository, commit a note on a branch',
  turns: [
    ...STEPS.map((s) => ({ text: s.text, tool_calls: [{ shell: s.command }] })),
    { text: `Committed the note on ${BRANCH}. The tree is clean:\n{{last_tool_result}}` },
  ],
};

/**
 * Codex's configuration names the repetition's proxy, so the command writes it (as in
 * examples/scripts/fault-matrix/codex.yaml, without the MCP server). No --skip-git-repo-check:
 * /work is a git repository, and Codex checks that itself.
 */
const CODEX_AGENT = `export CODEX_HOME="$HOME/.codex"
mkdir -p "$CODEX_HOME"
cat > "$CODEX_HOME/config.toml" <<TOML
model = "gpt-5-codex"
model_provider = "intutic"
check_for_update_on_startup = false

[analytics]
enabled = false

[features]
hooks = true
plugins = false

[model_providers.intutic]
name = "intutic"
base_url = "$OPENAI_BASE_URL"
wire_api = "responses"
env_key = "OPENAI_API_KEY"
supports_websockets = false

[projects."/work"]
trust_level = "trusted"
TOML
codex exec --dangerously-bypass-approvals-and-sandbox --dangerously-bypass-hook-trust "${PROMPT}"`;

const AGENT_COMMAND: Record<Agent, string> = {
  'claude-code': `claude -p "${PROMPT}" --allowedTools "Bash"`,
  codex: CODEX_AGENT,
  // As examples/scripts/fault-matrix/gemini.yaml: the model named, so no router call comes first.
  gemini: `gemini -m gemini-2.5-pro --yolo -p "${PROMPT}"`,
};

/** verify, run in the sandbox after the agent: the commit is on the branch, on top of the pinned commit, and holds the note. */
function verifyCommand(pinned: string): string {
  return [
    `git log -1 --format=%s ${BRANCH} | grep -qx '${SUBJECT}'`,
    `test "$(git rev-parse ${BRANCH}~1)" = ${pinned}`,
    `test "$(git diff --name-only ${BRANCH}~1 ${BRANCH})" = README.md`,
    `git show ${BRANCH}:README.md | grep -qx '${NOTE}'`,
    'test -z "$(git status --porcelain)"',
  ].join(' && ');
}

function experimentYaml(agent: Agent, pinned: string): string {
  return stringify({
    name: `git-in-sandbox-${agent}`,
    description: 'The agent looks at the repository with git and commits a note on a branch of its own.',
    agent: AGENT_COMMAND[agent],
    verify: verifyCommand(pinned),
    repeat: 1,
    // Fail-safe: the proxy answers the first model call with a 429 and the agent retries.
    faults: [{ id: 'llm.rate_limit', times: 1, retry_after_s: 0 }],
    probes: [
      { id: 'task_success', weight: 1 },
      { id: 'no_destructive_attempt', weight: 1 },
    ],
    abort: ['destructive_attempt', { cost_usd_above: 5 }, { wall_clock_s_above: 300 }],
  });
}

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** A project with two commits, a remote and a post-commit hook: none of the last two may reach the sandbox. */
async function gitProject(root: string, env: NodeJS.ProcessEnv): Promise<ExampleProject> {
  const project = await testProject(
    root,
    { 'README.md': '# git-check\n\nA project the agent works on with git.\n', 'src/index.js': "module.exports = { name: 'git-check' };\n" },
    env,
  );
  writeFileSync(join(project.dir, 'README.md'), '# git-check\n\nA project the agent works on with git.\n\n## Usage\n\n    require("git-check")\n');
  git(project.dir, 'commit', '--quiet', '-am', 'document the usage');
  git(project.dir, 'config', 'remote.origin.url', PLANTED_REMOTE);
  writeFileSync(join(project.dir, '.git', 'hooks', 'post-commit'), `#!/bin/sh\necho ${PLANTED_HOOK_OUTPUT}\n`, { mode: 0o755 });
  return project;
}

const readIfThere = (path: string): string => (existsSync(path) ? readFileSync(path, 'utf8') : `(no ${path})\n`);

interface GitRun {
  exitCode: number;
  report: Report;
  model: ScriptedModel;
  pinned: string;
  /** The project's history, newest first: `<sha> <subject>`. */
  history: { sha: string; subject: string }[];
  gitDirBefore: Record<string, string>;
  gitDirAfter: Record<string, string>;
  projectBranches: string;
}

async function runGitExperiment(agent: Agent, image: string): Promise<GitRun> {
  const root = e2e.scratch(`git-${agent}`);
  const project = await gitProject(root, e2e.env);
  const pinned = git(project.dir, 'rev-parse', 'HEAD').trim();
  const history = git(project.dir, 'log', '--format=%H %s')
    .trim()
    .split('\n')
    .map((line) => ({ sha: line.slice(0, 40), subject: line.slice(41) }));
  const gitDirBefore = gitDirHash(project.dir);
  const experimentFile = join(root, `git-${agent}.yaml`);
  writeFileSync(experimentFile, experimentYaml(agent, pinned));
  const { run, report, model } = await runScripted({ project, experimentFile, image, script: SCRIPT, root, tag: `[git ${agent}]` });
  if (report.verdict !== 'scored' || report.repetitions.some((r) => r.error || r.verify_exit_code !== 0)) {
    process.stderr.write(`[git ${agent}] chaos run's output:\n${run.stdout.slice(-6000)}\n${run.stderr.slice(-6000)}\n`);
    for (const rep of report.repetitions)
      process.stderr.write(
        `--- ${rep.kind} (error: ${rep.error}):\n${readIfThere(rep.artifacts.agent_output)}${readIfThere(rep.artifacts.agent_stderr).slice(-4000)}\n`,
      );
  }
  return {
    exitCode: run.code,
    report,
    model,
    pinned,
    history,
    gitDirBefore,
    gitDirAfter: gitDirHash(project.dir),
    projectBranches: git(project.dir, 'branch', '--list', BRANCH),
  };
}

const AGENT_API: Record<Agent, ShellApi> = { 'claude-code': 'anthropic', codex: 'openai-responses', gemini: 'gemini' };

/**
 * Every conversation that reached the end of the script (one per repetition): its shell calls with
 * their results, keyed by step. Requests without the last round are earlier turns of the same.
 */
function finishedConversations(agent: Agent, requests: readonly RecordedRequest[]): Record<StepKey, Exchange>[] {
  const api = AGENT_API[agent];
  const rounds = (body: Record<string, unknown>) =>
    (api === 'anthropic' ? readAnthropic(body) : api === 'gemini' ? readGemini(body, 'any') : readResponses(body)).rounds;
  return requests
    .filter((r) => r.api === api && isObject(r.body))
    .map((r) => r.body as Record<string, unknown>)
    .filter((body) => rounds(body) === STEPS.length)
    .map((body) => {
      const exchanges = shellExchanges(api, body);
      expect(exchanges.map((e) => e.command)).toEqual(STEPS.map((s) => s.command));
      return Object.fromEntries(STEPS.map((s, i) => [s.key, exchanges[i]!])) as Record<StepKey, Exchange>;
    });
}

const escapeRe = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function expectGitWorked(agent: Agent, run: GitRun): void {
  const { report, model, pinned, history } = run;
  expect(run.exitCode).toBe(0);
  expect(report.verdict).toBe('scored');
  expect(report.warnings).toEqual([]);
  // The fail-safe fault fired: the proxy answered the first model call with a 429 itself.
  expect(report.faults_fired).toMatchObject([{ id: 'llm.rate_limit', injections: 1 }]);
  const faulted = repetition(report, 'faulted');
  expect(events(faulted).flatMap((e) => (e.type === 'llm_call' ? [e.status] : []))).toContain(429);
  expect(faulted.probes.task_success).toBe(true);
  expect(report.probes.find((p) => p.id === 'task_success')).toMatchObject({ evaluated: 1, passed: 1, pass_k: true });
  for (const rep of report.repetitions) expect([rep.kind, rep.error, rep.agent_exit_code, rep.verify_exit_code]).toEqual([rep.kind, null, 0, 0]);

  const conversations = finishedConversations(agent, model.requests);
  expect(conversations.length, 'a finished conversation per repetition').toBeGreaterThanOrEqual(report.repetitions.length);
  const short = (sha: string) => sha.slice(0, 7);
  for (const steps of conversations) {
    for (const key of Object.keys(steps) as StepKey[])
      expect([key, steps[key].ok, steps[key].output], `${agent}: ${steps[key].command}`).toEqual([
        key,
        true,
        expect.not.stringMatching(/fatal:|not a git repository/),
      ]);
    // The start: HEAD detached at the pinned commit, the tree clean, no changes, the project's history.
    expect(steps.status.output).toContain(`HEAD detached at ${short(pinned)}`);
    expect(steps.status.output).toContain('nothing to commit, working tree clean');
    expect(steps.diff.output).not.toContain('diff --git');
    for (const commit of history) expect(steps.log.output).toMatch(new RegExp(`^${short(commit.sha)}\\w* .*${escapeRe(commit.subject)}$`, 'm'));
    expect(steps.log.output.trim().split('\n')).toHaveLength(history.length);
    // The branch, the edit and the commit.
    expect(steps.diffAfter.output).toContain(`+${NOTE}`);
    expect(steps.commit.output).toContain(SUBJECT);
    expect(steps.commit.output).toContain(BRANCH);
    const after = steps.logAfter.output.trim().split('\n');
    expect(after[0]).toMatch(new RegExp(`${escapeRe(SUBJECT)}$`));
    expect(after.slice(1).join('\n')).toContain(short(pinned));
    expect(steps.statusAfter.output).toContain(`On branch ${BRANCH}`);
    expect(steps.statusAfter.output).toContain('nothing to commit, working tree clean');
  }
  // Neither the project's remote nor its hook reached the sandbox: nothing the agent sent mentions them.
  const sent = JSON.stringify(model.requests.map((r) => r.body));
  expect(sent).not.toContain('planted-remote');
  expect(sent).not.toContain(PLANTED_HOOK_OUTPUT);
  // The project's refs, objects, config and hooks are byte for byte what they were; the agent's branch is not there.
  expect(run.gitDirAfter).toEqual(run.gitDirBefore);
  expect(run.projectBranches).toBe('');
}

const CLAUDE_GIT_CONTEXT = 'This is the git status at the start of the conversation.';

/** The git status Claude Code itself reads at start and puts in its context, from the first string of `body` that holds it. */
function claudeGitContext(body: unknown): string | undefined {
  if (typeof body === 'string') return body.includes(CLAUDE_GIT_CONTEXT) ? body.slice(body.indexOf(CLAUDE_GIT_CONTEXT)) : undefined;
  if (Array.isArray(body)) return body.map(claudeGitContext).find((found) => found !== undefined);
  if (isObject(body))
    return Object.values(body)
      .map(claudeGitContext)
      .find((found) => found !== undefined);
  return undefined;
}

describe.runIf(e2e.ready)('git in a repetition, with the real agents', () => {
  it('Claude Code, through its Bash tool: status, diff, log, a commit on a branch; verify checks it; scored; the project untouched', async () => {
    const run = await runGitExperiment('claude-code', await agentImage());
    expectGitWorked('claude-code', run);
    // Claude Code's own git read at start worked too: detached HEAD, a clean tree, the project's
    // history and the sandbox's committer in the context of every conversation it had.
    const contexts = run.model.requests.filter((r) => r.api === 'anthropic').map((r) => claudeGitContext(r.body));
    expect(contexts.filter((c) => c !== undefined).length, "requests with Claude Code's git context").toBeGreaterThanOrEqual(run.report.repetitions.length);
    for (const context of contexts.filter((c): c is string => c !== undefined)) {
      expect(context).toContain('Current branch: HEAD');
      expect(context).toContain('Git user: intutic sandbox');
      expect(context).toContain('Status:\n(clean)');
      for (const commit of run.history) expect(context).toMatch(new RegExp(`^${commit.sha.slice(0, 7)}\\w* .*${escapeRe(commit.subject)}$`, 'm'));
    }
  });

  it('Codex, through exec_command: status, diff, log, a commit on a branch; verify checks it; scored; the project untouched', async () => {
    const engine = await checkEngine({ env: process.env });
    const image = await ensureCodexAgentImage(engine, {
      version: cliVersion(),
      env: sandboxBuildEnv(process.env),
      onProgress: (line) => process.stderr.write(`[codex image] ${line}\n`),
    });
    const run = await runGitExperiment('codex', image);
    expectGitWorked('codex', run);
  });

  it('Gemini CLI, through run_shell_command: status, diff, log, a commit on a branch; verify checks it; scored; the project untouched', async () => {
    const engine = await checkEngine({ env: process.env });
    const image = await ensureGeminiAgentImage(engine, {
      version: cliVersion(),
      env: sandboxBuildEnv(process.env),
      onProgress: (line) => process.stderr.write(`[gemini image] ${line}\n`),
    });
    const run = await runGitExperiment('gemini', image);
    expectGitWorked('gemini', run);
  });
});
