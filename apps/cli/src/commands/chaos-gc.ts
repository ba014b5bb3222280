// `intutic chaos gc`: tidy this machine. What dead workers left (containers, proxies, worktrees of
// jobs whose lock is gone, as a worker's own sweep removes them), job directories kept with --keep
// longer than --older-than, and old image build logs. Reports and their artifacts are the user's and
// never touched. A worker does the same on its own every few seconds; gc is for a machine where none runs.
import type { Command } from 'commander';
import { EXIT, IntuticError } from '@intutic/errors';
import { openExistingQueue, redactUrl } from '@intutic/queue';
import { describeSweep, pruneKeptJobs, sweepOrphans } from '@intutic/runner';
import { checkEngine, pruneBuildLogs } from '@intutic/sandbox';
import { intuticHome } from '@intutic/workspace';
import { join } from 'node:path';
import type { Registration } from '../program.ts';
import type { CliContext } from '../context.ts';
import { repetitionEffects } from '../runner-deps.ts';

export interface GcOptions {
  /** Kept job directories older than this many days go. */
  olderThanDays: number;
}

export interface GcDeps {
  say: (line: string) => void;
  /** Removes what dead workers left; null when no Redis answers (whose locks say which jobs are dead). */
  sweepOrphans: () => Promise<string[] | null>;
  pruneKeptJobs: (maxAgeMs: number) => Promise<string[]>;
  pruneBuildLogs: () => number;
}

export function parseGcOptions(raw: { olderThan: string }): GcOptions {
  const days = Number(raw.olderThan);
  if (!Number.isFinite(days) || days < 0) throw new IntuticError('E_USAGE', `--older-than must be a number of days (0 or more), got ${raw.olderThan}`);
  return { olderThanDays: days };
}

export async function runGc(options: GcOptions, deps: GcDeps): Promise<number> {
  const swept = await deps.sweepOrphans();
  if (swept === null) deps.say("dead workers' leftovers: not checked (no Redis answers; its job locks say which jobs are dead)");
  else for (const line of swept) deps.say(line);
  const kept = await deps.pruneKeptJobs(options.olderThanDays * 24 * 3600 * 1000);
  for (const jobId of kept) deps.say(`removed ${jobId}'s job directory (kept with --keep, older than ${options.olderThanDays} days)`);
  const logs = deps.pruneBuildLogs();
  if (logs > 0) deps.say(`removed ${logs} old image build log(s)`);
  if ((swept ?? []).length === 0 && kept.length === 0 && logs === 0) deps.say('nothing to remove');
  return EXIT.ok;
}

/** The real sweep: this machine's engine and the configured Redis, as a worker sees them. */
export function gcDepsFrom(ctx: CliContext): GcDeps {
  const home = intuticHome(ctx.env);
  return {
    say: (line) => ctx.stderr.write(`${line}\n`),
    sweepOrphans: async () => {
      const queue = await openExistingQueue(ctx.env).catch(() => null);
      if (!queue) return null;
      try {
        const engine = await checkEngine({ env: ctx.env }).catch(() => null);
        const queueId = { redis: redactUrl(queue.config.url), prefix: queue.config.prefix };
        const cleanup = engine ? repetitionEffects(ctx.env, engine) : null;
        if (!engine || !cleanup) return ["dead workers' leftovers: not checked (no container engine answers)"];
        const report = await sweepOrphans({ home, engine, cleanup, redis: queue.redis, queue: queueId });
        return describeSweep(report);
      } finally {
        await queue.close();
      }
    },
    pruneKeptJobs: (maxAgeMs) => pruneKeptJobs(home, maxAgeMs),
    pruneBuildLogs: () => pruneBuildLogs(join(home, 'logs')),
  };
}

export function registerChaosGcCommand(chaos: Command, reg: Registration): void {
  chaos
    .command('gc')
    .description('remove what dead workers left, job directories kept with --keep, and old build logs (never reports)')
    .option('--older-than <days>', 'remove kept job directories older than this many days', '7')
    .action(async (raw: { olderThan: string }) => {
      reg.setExit(await runGc(parseGcOptions(raw), gcDepsFrom(reg.ctx)));
    });
}
