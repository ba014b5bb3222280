// Benchmark: a hook gate's decision as a process, node start-up included — the time an agent waits
// per tool call — measured side by side with a bare `node -e 0` in the same run (interleaved, so
// machine load hits both alike). Cases: an allowed call with a policy and a chaos plan loaded (lock
// and state file included), and a destructive call that is blocked.
//   node scripts/bench/gates.mjs [--runs N]
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { emitRow } from './_rows.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg === -1 ? 40 : Number(process.argv[runsArg + 1]);
const TARGET_MS = 50;

const gateSource = join(root, 'libs/gates/dist/claude-code-check.cjs');
if (!existsSync(gateSource)) spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { stdio: 'inherit' });

const project = mkdtempSync(join(tmpdir(), 'intutic-bench-gates-'));
const hooks = join(project, '.intutic/hooks');
mkdirSync(hooks, { recursive: true });
const gate = join(hooks, 'claude-code-check.cjs');
copyFileSync(gateSource, gate);
const home = join(project, 'home');
mkdirSync(join(home, '.intutic/hooks'), { recursive: true });
const { STARTER_SNAPSHOT } = await import(join(root, 'libs/governance/src/starter.ts')).catch(() => ({ STARTER_SNAPSHOT: '{"rules":[]}' }));
writeFileSync(join(home, '.intutic/hooks/snapshot-rules.json'), STARTER_SNAPSHOT);
const plan = join(project, 'plan.json');
writeFileSync(
  plan,
  JSON.stringify({
    schema_version: 1,
    experiment: 'bench',
    run_id: 'bench',
    canary: 'E-INTUTIC-00000000',
    faults: [{ index: 0, id: 'tool.error', match: { tool: 'NeverCalled' }, after_calls: 0, times: null, options: {} }],
  }),
);
const env = { PATH: process.env.PATH, HOME: home, INTUTIC_CHAOS_PLAN: plan, INTUTIC_CHAOS_EVENTS: join(project, '.intutic-chaos/events.jsonl') };

const payload = (command) =>
  JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command }, tool_use_id: 'bench', cwd: project, session_id: 'bench' });
const cases = {
  'node -e 0 (baseline)': { args: ['-e', '0'], input: '' },
  'gate: allowed call (policy + plan)': { args: [gate], input: payload('npm test && git status') },
  'gate: destructive call blocked': { args: [gate], input: payload('sudo bash -c "rm -rf ~"') },
};

function once({ args, input }) {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { input, env, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (const c of Object.values(cases)) once(c); // warm the file cache
for (let i = 0; i < RUNS; i++) for (const [name, c] of Object.entries(cases)) times[name].push(once(c));

const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const base = times['node -e 0 (baseline)'];
console.log(`gate decision as a process, ${RUNS} runs each (node ${process.version})`);
console.log('case'.padEnd(38), 'p50 ms'.padStart(8), 'p95 ms'.padStart(8), 'p50 over node'.padStart(14), 'ratio'.padStart(7));
for (const [name, xs] of Object.entries(times)) {
  const over = pct(xs, 50) - pct(base, 50);
  console.log(
    name.padEnd(38),
    pct(xs, 50).toFixed(1).padStart(8),
    pct(xs, 95).toFixed(1).padStart(8),
    over.toFixed(1).padStart(14),
    (pct(xs, 50) / pct(base, 50)).toFixed(2).padStart(7),
  );
}
const worst = Math.max(
  ...Object.entries(times)
    .filter(([n]) => n.startsWith('gate'))
    .map(([, xs]) => pct(xs, 50)),
);
console.log(
  `target: a decision under ${TARGET_MS} ms as a process. Worst gate p50 ${worst.toFixed(1)} ms (${worst < TARGET_MS ? 'within' : 'over'} target); bare node p50 ${pct(base, 50).toFixed(1)} ms on this machine now.`,
);
for (const [name, xs] of Object.entries(times).filter(([n]) => n.startsWith('gate'))) {
  emitRow({
    row: `${name} (process, p50)`,
    measured: pct(xs, 50),
    baseline: pct(base, 50),
    unit: 'ms',
    target: '< 50 ms',
    met: pct(xs, 50) < TARGET_MS,
    note:
      name === 'gate: destructive call blocked'
        ? `baseline is bare \`node -e 0\` (${pct(base, 50).toFixed(1)} ms here): node start-up alone is most of a gate's time`
        : undefined,
  });
}
