// Phase 5, collect: with the proxy stopped (the events file is final), the output files closed, the
// events kept next to the report — the mirror's copy, which shows tampering — and the plan beside
// them. An events file the agent tampered with cannot score it: the repetition is an error.
import { join } from 'node:path';
import type { RepetitionContext } from '@intutic/queue';
import type { RunnerDeps } from './deps.ts';
import { writeFailed, type RepetitionState } from './state.ts';

/** Clean-up, first step: the proxy goes before anything is collected, so nothing more is written. */
export async function stopRepetitionProxy(rep: RepetitionState): Promise<void> {
  await rep.proxy?.stop();
}

export async function collectArtifacts(rep: RepetitionState, ctx: RepetitionContext, deps: RunnerDeps): Promise<void> {
  const { outputs, warnings } = rep;
  await Promise.all([outputs.stdout.end('agent stdout'), outputs.stderr.end('agent stderr'), outputs.verify.end('verify output')]);
  for (const [name, file] of [
    ['agent stdout', outputs.stdout],
    ['agent stderr', outputs.stderr],
    ['verify output', outputs.verify],
  ] as const) {
    if (file.truncated) warnings.push(file.note(name));
  }
  clearInterval(rep.mirrorTimer);
  const kept = await deps.artifacts.keepEvents({
    mirror: rep.mirror,
    events: rep.paths.events,
    worktree: rep.paths.worktree,
    artifact: rep.artifacts.events,
    runId: rep.runId,
    notKept: writeFailed(rep, 'the events (events.jsonl)'),
  });
  const cancelled = rep.trigger?.kind === 'cancel';
  if (rep.writeError && !rep.error && !cancelled) rep.error = rep.writeError;
  if (kept && (kept.tampering.length > 0 || kept.forged > 0)) {
    // A record the agent could rewrite cannot score it: the repetition is an error, never a pass.
    const what = [...kept.tampering, ...(kept.forged > 0 ? [`${kept.forged} line(s) carried another run's id (forged; left out)`] : [])].join('; ');
    // A file that was not read (a link, a FIFO…) adds nothing: nothing of what it points at is kept.
    const keptWhat = kept.tampering.some((t) => t.endsWith('(not read)'))
      ? "only what the runner's mirror saw before"
      : "what the runner's mirror saw plus later lines";
    warnings.push(`tampering with /work/.intutic-chaos/events.jsonl: ${what}; the kept events are ${keptWhat}`);
    if (!rep.error && !cancelled) rep.error = `the events file was tampered with from inside the sandbox (${what}): this repetition is not scored`;
  }
  if (rep.faulted) {
    const refused = await deps.artifacts.keepCopy(rep.paths.plan, join(rep.artifacts.dir, 'plan.json'));
    if (refused) {
      warnings.push(`tampering with the plan: ${refused}`);
      if (!rep.error && !cancelled) rep.error = `the plan was tampered with (${refused}): this repetition is not scored`;
    }
  }
}
