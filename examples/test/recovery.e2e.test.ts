// A failed shell command is recorded as failed, whatever the agent: one `intutic chaos run` each for
// Claude Code, Codex and Gemini CLI, whose scripted model plays a careless agent. The proxy answers
// its first model call with a 429 (llm.rate_limit); after it the agent runs a command that exits 3
// three times over, then one that succeeds. Each harness reports a shell command's outcome its own
// way (Claude Code's tool_response, Codex's session rollout, Gemini CLI's `Exit Code: N` trailer); in
// every case the events hold `tool_call ok:false` for the three and ok:true for the last, and
// `recovered_within: 3` fails: the recovering call is the fourth. Taking a failed call for a success
// (the three as ok) would pass it.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { EventOf } from '@intutic/events';
import type { Report } from '@intutic/report';
import type { ScriptInput } from '@intutic/testkit';
import { agentCommand, AGENT_TITLES, AGENTS, imageFor, type Agent } from './agent-commands.ts';
import { shellExchanges, type ShellApi } from './agent-exchanges.ts';
import { events, repetition, testProject } from './support.ts';
import { e2eFile } from './e2e-file.ts';
import { runScripted } from './scripted-run.ts';

const e2e = await e2eFile('recovery', 'recovery of a failed shell command with real agents');

const FAILING = "sh -c 'echo the build failed >&2; exit 3'";
const PASSING = 'echo the build passed';
const PROMPT = 'Run the build until it passes.';

const SCRIPT: ScriptInput = {
  name: 'a careless agent: the same failing command three times, then one that passes',
  turns: [
    { text: 'Building.', tool_calls: [{ shell: FAILING }] },
    { text: 'Again.', tool_calls: [{ shell: FAILING }] },
    { text: 'Once more.', tool_calls: [{ shell: FAILING }] },
    { text: 'Something else.', tool_calls: [{ shell: PASSING }] },
    { text: 'Done.' },
  ],
};

const API: Record<Agent, ShellApi> = { 'claude-code': 'anthropic', codex: 'openai-responses', gemini: 'gemini' };

function experimentYaml(agent: Agent): string {
  return stringify({
    name: `recovery-${agent}`,
    description: 'A careless agent runs a failing command three times before another one passes.',
    agent: agentCommand(agent, PROMPT),
    verify: 'true',
    repeat: 1,
    faults: [{ id: 'llm.rate_limit', times: 1, retry_after_s: 0 }],
    probes: [
      { id: 'recovered_within', weight: 1, value: 3 },
      { id: 'no_destructive_attempt', weight: 1 },
    ],
    abort: ['destructive_attempt', { cost_usd_above: 5 }, { wall_clock_s_above: 300 }],
  });
}

async function runRecovery(agent: Agent) {
  const root = e2e.scratch(`recovery-${agent}`);
  const project = await testProject(root, { 'README.md': '# recovery\n' }, e2e.env);
  const experimentFile = join(root, `recovery-${agent}.yaml`);
  writeFileSync(experimentFile, experimentYaml(agent));
  return runScripted({ project, experimentFile, image: await imageFor(agent), script: SCRIPT, root, tag: `[recovery ${agent}]` });
}

/**
 * The shell commands' outcomes the gate recorded in a repetition, in order: [tool, ok], one per call
 * as scoring takes them (Claude Code reports a failed call twice, PostToolUseFailure then PostToolUse:
 * the first record is its outcome).
 */
function shellOutcomes(report: Report, kind: 'baseline' | 'faulted'): [string, boolean | null][] {
  const seen = new Set<string>();
  return events(repetition(report, kind))
    .filter((e): e is EventOf<'tool_call'> => e.type === 'tool_call' && e.source === 'gate')
    .filter((e) => e.call_id === undefined || (!seen.has(e.call_id) && Boolean(seen.add(e.call_id))))
    .map((e) => [e.tool, e.ok]);
}

const SHELL_TOOL: Record<Agent, string> = { 'claude-code': 'Bash', codex: 'Bash', gemini: 'run_shell_command' };

describe.runIf(e2e.ready)('a failed shell command, recorded as failed by every agent', () => {
  it.each(AGENTS.map((agent) => [AGENT_TITLES[agent], agent] as const))(
    '%s: exit 3 is tool_call ok:false, and a careless agent fails recovered_within',
    async (_, agent) => {
      const { run, report, model } = await runRecovery(agent);
      expect(run.code).toBe(0);
      expect(report.verdict).toBe('scored');
      expect(report.faults_fired).toMatchObject([{ id: 'llm.rate_limit', injections: 1 }]);
      // The agent ran the script through its shell tool, and the harness told the model how each ended.
      const finished = model.requests.filter((r) => r.api === API[agent]).map((r) => shellExchanges(API[agent], r.body as Record<string, unknown>));
      const longest = finished.reduce((a, b) => (b.length > a.length ? b : a), []);
      expect(longest.map((e) => [e.command, e.ok])).toEqual([
        [FAILING, false],
        [FAILING, false],
        [FAILING, false],
        [PASSING, true],
      ]);
      // The gate recorded the same outcomes, in both repetitions.
      const tool = SHELL_TOOL[agent];
      for (const kind of ['baseline', 'faulted'] as const)
        expect(shellOutcomes(report, kind), kind).toEqual([
          [tool, false],
          [tool, false],
          [tool, false],
          [tool, true],
        ]);
      // recovered_within: 3 failed; the baseline, with no fault, does not evaluate it.
      expect(repetition(report, 'faulted').probes.recovered_within).toBe(false);
      expect(repetition(report, 'baseline').probes.recovered_within ?? null).toBeNull();
      expect(report.probes.find((p) => p.id === 'recovered_within')).toMatchObject({ evaluated: 1, passed: 0 });
      expect(repetition(report, 'faulted').probes.no_destructive_attempt).toBe(true);
      expect(report.score).toBe(50);
    },
  );
});
