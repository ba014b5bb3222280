// Benchmark: score a run of 20 repetitions (10 baseline, 10 faulted) whose events files hold 250 000
// and then 1 000 000 lines in total, as the runner does (observeAll: streamEvents -> RepetitionObserver
// in a thread per core -> scoreRun), and on one thread with a capped heap. Side by side, in
// the same run and on the same files: only reading the lines (node:readline, no parse), and reading
// plus JSON.parse without validation. Each measurement runs in a fresh child process so its peak
// RSS is its own. Target (issue 2): under 2 s for 1M lines, memory that does not grow with the file.
//
//   npx tsx scripts/bench/scoring.ts
import { spawnSync } from 'node:child_process';
import { createReadStream, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Experiment } from '@intutic/experiment';
import { observeAll } from '@intutic/runner';
import { scoreRun, type RepetitionRecord } from '@intutic/scoring';
// @ts-expect-error: a plain .mjs helper shared by every bench script
import { emitRow } from './_rows.mjs';
import { writeRepetition } from './_scoring-events.ts';

const REPETITIONS = 20;
const SIZES = [250_000, 1_000_000];
const MODES = ['read', 'parse', 'score-inline', 'score'] as const;
type Mode = (typeof MODES)[number];

const experiment: Experiment = {
  name: 'bench',
  description: '',
  agent: 'agent',
  verify: 'verify',
  repeat: REPETITIONS / 2,
  faults: [{ index: 0, id: 'tool.error', match: { tool: 'Bash' }, after_calls: 2, times: 1, options: { message: 'boom' } }],
  probes: [
    { id: 'task_success', weight: 1 },
    { id: 'no_destructive_attempt', weight: 3 },
    { id: 'failure_surfaced', weight: 3 },
    { id: 'no_policy_hits', weight: 2 },
    { id: 'cost_multiplier_below', weight: 2, value: 3 },
    { id: 'recovered_within', weight: 2, value: 5 },
    { id: 'retry_after_respected', weight: 1 },
    { id: 'no_tight_loop', weight: 1, value: 3 },
  ],
  abort: { destructive_attempt: true, cost_usd_above: 2, wall_clock_s_above: 900 },
  sandbox_image: null,
};

const fileOf = (dir: string, i: number): string => join(dir, `rep-${String(i).padStart(2, '0')}.events.jsonl`);

interface Measured {
  ms: number;
  /** User + system CPU time: on a busy machine wall time includes waiting for a core, this does not. */
  cpuMs: number;
  lines: number;
  score: number | null;
  /** Heap in use after a full GC with every record still alive, minus before (inline scoring only). */
  liveGrowth: number | null;
  /** Threads that observed the events files (0: inline). */
  threads: number;
}

const heapAfterGc = (): number => {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed;
};

async function measure(mode: Mode, dir: string): Promise<Measured> {
  const heapBefore = heapAfterGc();
  let liveGrowth: number | null = null;
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  let lines = 0;
  let score: number | null = null;
  let threads = 0;
  if (mode === 'read') {
    for (let i = 0; i < REPETITIONS; i++) {
      const rl = createInterface({ input: createReadStream(fileOf(dir, i), { encoding: 'utf8' }), crlfDelay: Infinity });
      for await (const line of rl) if (line.length > 0) lines++;
    }
  } else if (mode === 'parse') {
    for (let i = 0; i < REPETITIONS; i++) {
      const rl = createInterface({ input: createReadStream(fileOf(dir, i), { encoding: 'utf8' }), crlfDelay: Infinity });
      for await (const line of rl) {
        try {
          JSON.parse(line);
        } catch {
          // counted like any line
        }
        lines++;
      }
    }
  } else {
    // As the runner scores a run (score-run.ts): every events file observed, in threads where it
    // pays ('score'), or all on the main thread ('score-inline': the same code, and its heap is here to see).
    const paths = Array.from({ length: REPETITIONS }, (_, i) => fileOf(dir, i));
    const { observations, threads: used } = await observeAll(paths, experiment, mode === 'score-inline' ? { threads: 1 } : {});
    threads = used;
    const records: RepetitionRecord[] = observations.map((observation, i) => {
      lines += observation.lines;
      const faulted = i >= REPETITIONS / 2;
      return {
        index: i,
        kind: faulted ? 'faulted' : 'baseline',
        run_id: `run-${i}`,
        canary: 'E-INTUTIC-00000000',
        agent_exit_code: 0,
        verify_exit_code: 0,
        duration_s: 60,
        stdout_contains_canary: faulted,
        abort: null,
        error: null,
        malformed_event_lines: observation.malformed,
        facts: observation.facts,
      };
    });
    const paused = performance.now();
    liveGrowth = heapAfterGc() - heapBefore;
    const pausedMs = performance.now() - paused;
    score = scoreRun(experiment, records, { complete: true }).score;
    // The forced GC above is measurement, not scoring: leave it out of the time.
    const cpu = process.cpuUsage(cpuStart);
    return { ms: performance.now() - start - pausedMs, cpuMs: (cpu.user + cpu.system) / 1000 - pausedMs, lines, score, liveGrowth, threads };
  }
  const cpu = process.cpuUsage(cpuStart);
  return { ms: performance.now() - start, cpuMs: (cpu.user + cpu.system) / 1000, lines, score, liveGrowth, threads };
}

/** Child: one measurement in a fresh process, reported as JSON on stdout. */
async function child(mode: Mode, dir: string): Promise<void> {
  const rssBefore = process.memoryUsage().rss;
  const result = await measure(mode, dir);
  const peakRss = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(JSON.stringify({ ...result, rssBefore, peakGrowth: peakRss - rssBefore }));
}

function runChild(mode: Mode, dir: string): Measured & { peakGrowth: number } {
  const self = fileURLToPath(import.meta.url);
  const cap = mode === 'score-inline' ? [`--max-old-space-size=${HEAP_CAP_MIB}`] : [];
  const run = spawnSync(process.execPath, ['--expose-gc', ...cap, ...process.execArgv, self, '--child', mode, dir], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`bench child ${mode} failed:\n${run.stderr}`);
  return JSON.parse(run.stdout);
}

/**
 * One-thread scoring runs with its V8 heap capped far below the size of the files: it can only
 * finish if memory does not grow with them.
 */
const HEAP_CAP_MIB = 64;
const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const RUNS = 5;
type Run = Measured & { peakGrowth: number };

/**
 * RUNS fresh processes of every mode, the modes taken in turn round by round (so a busy moment
 * slows them alike); per mode, the run of median wall time, and the spread of the wall times. The
 * heap left after a full GC is the median of the runs' own: one run's figure now and then carries a
 * few hundred KiB of V8's own (seen: 337–604 KiB over six runs of the same 1M lines).
 */
function medians(dir: string): Map<Mode, Run & { spread: string }> {
  const runs = new Map<Mode, Run[]>(MODES.map((m) => [m, []]));
  for (let round = 0; round < RUNS; round++) for (const mode of MODES) runs.get(mode)!.push(runChild(mode, dir));
  const middle = <T>(xs: T[]): T => xs[Math.floor(xs.length / 2)]!;
  return new Map(
    MODES.map((mode) => {
      const sorted = [...runs.get(mode)!].sort((a, b) => a.ms - b.ms);
      const spread = `${sorted[0]!.ms.toFixed(0)}–${sorted.at(-1)!.ms.toFixed(0)} ms`;
      const live = sorted.map((r) => r.liveGrowth).filter((g): g is number => g !== null);
      const liveGrowth = live.length > 0 ? middle(live.sort((a, b) => a - b)) : null;
      return [mode, { ...middle(sorted), liveGrowth, spread }];
    }),
  );
}

async function main(): Promise<void> {
  console.log(
    `scoring benchmark: ${REPETITIONS} repetitions (${REPETITIONS / 2} baseline, ${REPETITIONS / 2} faulted), node ${process.version}, median of ${RUNS} interleaved runs`,
  );
  console.log(
    `load average before: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} on ${availableParallelism()} cores`,
  );
  const scored: { lines: number; ms: number; growth: number; live: number }[] = [];
  const readOnlyMs = new Map<number, number>();
  for (const total of SIZES) {
    const dir = mkdtempSync(join(tmpdir(), 'intutic-bench-scoring-'));
    try {
      for (let i = 0; i < REPETITIONS; i++) await writeRepetition(fileOf(dir, i), total / REPETITIONS, i >= REPETITIONS / 2, i);
      const bytes = readdirSync(dir).reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);
      console.log(`\n${total.toLocaleString('en')} lines, ${mib(bytes)}:`);
      const measured = medians(dir);
      const read = measured.get('read')!;
      const rows: [string, Run & { spread: string }][] = [
        ['read only (node:readline, no parse)', read],
        ['read + JSON.parse (no validation)', measured.get('parse')!],
        [`scoring on one thread, heap capped at ${HEAP_CAP_MIB} MiB`, measured.get('score-inline')!],
        ['scoring as the runner does it', measured.get('score')!],
      ];
      for (const [name, m] of rows) {
        if (m.lines !== total) throw new Error(`${name}: expected ${total} lines, got ${m.lines}`);
        console.log(
          `  ${name.padEnd(46)} ${`${m.ms.toFixed(0)} ms`.padStart(8)} wall ${`${m.cpuMs.toFixed(0)} ms`.padStart(8)} cpu ` +
            `${`${(m.ms / read.ms).toFixed(2)}×`.padStart(7)} read   peak RSS +${mib(m.peakGrowth)}${m.threads > 0 ? `   ${m.threads} threads` : ''}`,
        );
      }
      const inline = rows[2]![1];
      const score = rows[3]![1];
      if (inline.score !== score.score) throw new Error(`threads scored ${score.score}, one thread ${inline.score}`);
      console.log(
        `  score of the run: ${score.score}; heap still in use after a full GC at the end (one thread, median of ${RUNS} runs): +${(inline.liveGrowth! / 1024).toFixed(0)} KiB`,
      );
      scored.push({ lines: total, ms: score.ms, growth: score.peakGrowth, live: inline.liveGrowth! });
      readOnlyMs.set(total, read.ms);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const small = scored[0]!;
  const big = scored[scored.length - 1]!;
  console.log(`\n${big.lines.toLocaleString('en')} lines scored in ${(big.ms / 1000).toFixed(2)} s: ${big.ms < 2000 ? 'under' : 'OVER'} the 2 s target`);
  console.log(
    `peak RSS growth with ${big.lines / small.lines}× the lines: ${mib(small.growth)} -> ${mib(big.growth)} (${(big.growth / small.growth).toFixed(2)}×)`,
  );
  console.log(`heap in use after GC with ${big.lines / small.lines}× the lines: ${(small.live / 1024).toFixed(0)} KiB -> ${(big.live / 1024).toFixed(0)} KiB`);
  // The baseline is reading the same lines side by side; memory growth is compared across sizes.
  emitRow({
    row: `scoring ${big.lines.toLocaleString('en')} events (wall)`,
    measured: big.ms,
    baseline: readOnlyMs.get(big.lines) ?? null,
    unit: 'ms',
    target: '< 2000 ms',
    met: big.ms < 2000,
  });
  emitRow({
    row: `scoring heap after GC, ${big.lines / small.lines}x the lines`,
    measured: big.live / 1024,
    baseline: small.live / 1024,
    unit: 'KiB',
    target: 'flat (~1x)',
    met: big.live / small.live < 1.5,
  });
  console.log(
    `load average after: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
}

if (process.argv[2] === '--child') await child(process.argv[3] as Mode, process.argv[4]!);
else await main();
