#!/usr/bin/env node
// `npm run bench`: runs every benchmark script one after the other (never in parallel: they measure
// against baselines taken side by side, and a second load would skew both), shows their own output
// as progress on stderr, and ends with one table of the rows they reported (scripts/bench/_rows.mjs).
// Budget: the whole suite must finish on a 2-core machine in under 18 minutes (the scale row alone
// takes about 6: 8 repetitions of a 20 s agent on 1, 2 and 4 workers; the managed-gates row about 3:
// 16 repetitions of real Claude Code). It exits non-zero when
// a script fails or any row misses its target, naming the rows; INTUTIC_BENCH_EGRESS_DELAY_MS=1
// slows our egress side on purpose, to see that happen.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const node = process.execPath;
const tsx = join(root, 'node_modules/tsx/dist/cli.mjs');

// [script, args, seconds allowed]
const suite = [
  ['scripts/bench/scoring.ts', [], 240],
  ['scripts/bench/proxy-llm.mjs', [], 90],
  ['scripts/bench/proxy-egress.mjs', [], 120],
  ['scripts/bench/mcp-proxy.mjs', ['1000'], 60],
  ['scripts/bench/gates.mjs', [], 60],
  ['scripts/bench/sandbox.mjs', ['10'], 150],
  ['scripts/bench/runner.mjs', ['6'], 300],
  ['scripts/bench/managed-gates.mjs', ['2'], 480],
  ['scripts/bench/workspace.mjs', [], 240],
  ['scripts/bench/scale.mjs', ['20'], 600],
  ['scripts/bench/suite-workers.mjs', ['1'], 120],
];
// --only NAME: run just the scripts whose file name contains NAME (e.g. --only workspace).
const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : null;
if (only !== null && !suite.some(([script]) => script.includes(only))) {
  console.error(`--only ${only}: no benchmark script matches (${suite.map(([s]) => s.split('/').pop()).join(', ')})`);
  process.exit(2);
}

function runScript(script, args, seconds) {
  return new Promise((resolve) => {
    const command = script.endsWith('.ts') ? [tsx, script, ...args] : [script, ...args];
    const child = spawn(node, command, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const rows = [];
    let buffered = '';
    const timer = setTimeout(() => child.kill('SIGTERM'), seconds * 1000);
    child.stdout.on('data', (chunk) => {
      buffered += chunk;
      let nl;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        if (line.startsWith('BENCH:')) rows.push(JSON.parse(line.slice(6)));
        else process.stderr.write(`  ${line}\n`);
      }
    });
    child.stderr.on('data', (chunk) => process.stderr.write(chunk));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ rows, code, signal, timedOut: signal === 'SIGTERM' });
    });
  });
}

const started = Date.now();
const table = [];
for (const [script, args, seconds] of suite.filter(([script]) => only === null || script.includes(only))) {
  process.stderr.write(`\n== ${script}\n`);
  const t = Date.now();
  const { rows, code, timedOut } = await runScript(script, args, seconds);
  const took = ((Date.now() - t) / 1000).toFixed(0);
  if (rows.length === 0) table.push({ row: script, failed: timedOut ? `timed out after ${seconds} s` : `exited ${code} without a result` });
  for (const row of rows) table.push({ ...row, took });
}

const fmt = (n) => (n === null || n === undefined ? '—' : Math.abs(n) >= 100 ? n.toFixed(0) : Math.abs(n) >= 1 ? n.toFixed(2) : n.toFixed(3));
const lines = [['benchmark', 'measured', 'baseline', 'unit', 'ratio', 'target', 'met']];
for (const r of table) {
  if (r.failed) lines.push([r.row, '—', '—', '', '—', '', `FAILED: ${r.failed}`]);
  else
    lines.push([
      r.row,
      fmt(r.measured),
      fmt(r.baseline),
      r.unit,
      r.ratio == null ? '—' : `${fmt(r.ratio)}x`,
      r.target,
      r.met === null ? 'n/a' : r.met ? 'yes' : 'NO',
    ]);
}
const widths = lines[0].map((_, i) => Math.max(...lines.map((l) => String(l[i]).length)));
console.log(`\nintutic benchmarks (${process.version}, ${Math.round((Date.now() - started) / 1000)} s)`);
for (const [i, l] of lines.entries()) {
  console.log(l.map((c, j) => String(c).padEnd(widths[j])).join('  '));
  if (i === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
}
const notes = table.filter((r) => r.note).map((r) => `- ${r.row}: ${r.note}`);
if (notes.length) console.log(`\n${notes.join('\n')}`);
// A missed target fails the bench as a failed script does, naming the row.
const missed = table.filter((r) => r.met === false);
if (missed.length) console.log(`\ntarget missed: ${missed.map((r) => r.row).join('; ')}`);
process.exitCode = table.some((r) => r.failed) || missed.length > 0 ? 1 : 0;
