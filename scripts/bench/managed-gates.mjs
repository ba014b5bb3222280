// What the managed gates cost a repetition (issue 40: "nothing here slows a repetition by more than
// 5%"). Real Claude Code does the same everyday work — CALLS shell commands chosen by the scripted
// model — in a connected project, in two images side by side, run after run in turn:
// - measured: the shipped agent image, whose gate sits at Claude Code's managed level (every call
//   decided by the managed gate; the project's copy starts and stands down);
// - baseline: the same image with the managed registrations taken out, as before issue 40 (the
//   project's gate, merged in by connect, decides every call alone).
// Both arms run the same CLI, proxy and host; the host's other issue-40 changes (reading sandbox files
// without following links, the terminal-safe live view) are in both, so this row times the gate's
// move into the image, the change that runs once per tool call. Each repetition is timed from the
// report (started_at to finished_at); every call must have a gate decision in both arms, else the
// comparison is void and the script fails.
// Usage: node scripts/bench/managed-gates.mjs [rounds=3]   (a round: one run per image, in turn;
// each run is REPEAT baseline + REPEAT faulted repetitions)
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { register } from 'tsx/esm/api';
import { emitRow } from './_rows.mjs';

register();
const { startScriptedModel } = await import('@intutic/testkit');
const { runExperiment } = await import('../../examples/demo/src/chaos.ts');
const { assertCliBuilt } = await import('../../examples/demo/src/intutic.ts');
const { agentCommand, imageFor, unmanagedImageFor } = await import('../../examples/test/agent-commands.ts');
const { deleteQueueKeys, e2eEnv, events, removeDir, scratchDir, testProject } = await import('../../examples/test/support.ts');

const rounds = Number(process.argv[2] ?? 3);
const REPEAT = 2;
const SHELL = [
  'ls -la',
  'cat README.md',
  'git status --short',
  'node --version',
  'mkdir -p notes',
  'echo "- checked" > notes/todo.md',
  'git diff --stat',
  'wc -l README.md',
];
const SCRIPT = {
  name: 'managed-gates bench: everyday calls',
  turns: [...SHELL.map((shell) => ({ text: 'Next step.', tool_calls: [{ shell }] })), { text: 'Done: {{last_tool_result}}' }],
};
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const spread = (xs) => `${(Math.min(...xs) / 1000).toFixed(1)}–${(Math.max(...xs) / 1000).toFixed(1)} s`;

assertCliBuilt();
process.stderr.write('  the Claude Code image and its variant without the managed gates\n');
const arms = { managed: await imageFor('claude-code'), project: await unmanagedImageFor('claude-code') };
const queuePrefix = `intutic-bench-managed-${process.pid}`;
const root = scratchDir('bench-managed-gates');
const env = e2eEnv(queuePrefix);
const project = await testProject(root, { 'README.md': '# shop\n\nRun npm test before you commit.\n' }, env);
const experimentFile = join(root, 'everyday.yaml');
writeFileSync(
  experimentFile,
  stringify({
    name: 'managed-gates-bench',
    description: 'Everyday shell calls by Claude Code; the model rate-limits once.',
    agent: agentCommand('claude-code', 'Look around the project and note what to check.'),
    verify: 'true',
    repeat: REPEAT,
    faults: [{ id: 'llm.rate_limit', times: 1, retry_after_s: 0 }],
    probes: [{ id: 'no_destructive_attempt', weight: 1 }],
    abort: ['destructive_attempt', { cost_usd_above: 5 }, { wall_clock_s_above: 300 }],
  }),
);
const model = await startScriptedModel({ script: SCRIPT });
/** Per arm, per repetition kind: each repetition's ms. */
const times = { managed: { baseline: [], faulted: [] }, project: { baseline: [], faulted: [] } };
try {
  for (let round = 0; round < rounds; round++) {
    for (const arm of round % 2 ? ['project', 'managed'] : ['managed', 'project']) {
      const reportPath = join(root, `report-${arm}-${round}.json`);
      process.stderr.write(`  round ${round + 1}/${rounds}: ${arm} gate (${arms[arm]})\n`);
      const { run, report } = await runExperiment({ project, experimentFile, image: arms[arm], modelUrl: model.url, reportPath, timeoutMs: 600_000 });
      if (!report || report.verdict !== 'scored')
        throw new Error(`the ${arm} run was not scored (exit ${run.code}):\n${run.stdout.slice(-2000)}${run.stderr.slice(-3000)}`);
      for (const rep of report.repetitions) {
        const decided = events(rep).filter((e) => e.type === 'gate_decision' && e.source === 'gate').length;
        if (decided < SHELL.length)
          throw new Error(`${arm} ${rep.kind} ${rep.index}: ${decided} gate decisions for ${SHELL.length} calls: the gate did not decide every call`);
        times[arm][rep.kind].push(Date.parse(rep.finished_at) - Date.parse(rep.started_at));
      }
    }
  }
} finally {
  await model.close();
  await deleteQueueKeys(queuePrefix);
  removeDir(root);
}

const all = (arm) => [...times[arm].baseline, ...times[arm].faulted];
const measured = median(all('managed'));
const baseline = median(all('project'));
console.log(
  `managed gates vs the project's gate, real Claude Code, ${SHELL.length} shell calls a repetition, ${rounds} rounds (${all('managed').length} repetitions an arm)`,
);
for (const arm of ['managed', 'project'])
  console.log(
    `  ${arm.padEnd(8)} median ${(median(all(arm)) / 1000).toFixed(2)} s (${spread(all(arm))})   baseline reps ${(median(times[arm].baseline) / 1000).toFixed(2)} s, faulted ${(median(times[arm].faulted) / 1000).toFixed(2)} s`,
  );
console.log(`  ratio ${(measured / baseline).toFixed(3)}x   target <= 1.05x: ${measured / baseline <= 1.05 ? 'met' : 'NOT met'}`);
emitRow({
  row: `repetition with the managed gates vs the project's gate alone (real Claude Code, ${SHELL.length} shell calls)`,
  measured,
  baseline,
  unit: 'ms',
  target: '<= 1.05x',
  met: measured / baseline <= 1.05,
  note: `medians of ${all('managed').length} repetitions an arm, runs in turn; managed ${spread(all('managed'))}, project ${spread(all('project'))}`,
});
