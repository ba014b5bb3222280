// Phase 2, proxy, run beside prepare: the repetition's own proxy (with the plan when faulted), its pid
// in the intent log as soon as it exists; then the sandbox spec that points the agent at it.
// Provider keys stay on the host: the sandbox gets stand-ins, the proxy swaps in the real keys. A
// proxy that dies later stops the sandbox the way an abort does (without it the agent only fails its
// calls).
import { join } from 'node:path';
import type { RepetitionContext } from '@intutic/queue';
import { CHAOS_DIR_IN_WORKTREE } from '../paths.ts';
import { buildSandboxEnv, makeStandIns } from '../sandbox-env.ts';
import { writeJobState } from '../state.ts';
import type { RunnerDeps } from './deps.ts';
import { errorText, writeFailed, type RepetitionState } from './state.ts';

export async function startRepetitionProxy(rep: RepetitionState, ctx: RepetitionContext, deps: RunnerDeps): Promise<void> {
  const { payload } = ctx;
  const { paths, artifacts, faulted } = rep;
  await ctx.setProgress({ phase: 'proxy', run_id: rep.runId, canary: rep.canary, artifacts_dir: artifacts.dir });
  rep.standIns = makeStandIns(payload.env_names, deps.env);
  const proxy = await deps.startProxy({
    host: deps.gateway,
    eventsPath: paths.events,
    ...(faulted ? { planPath: paths.plan } : {}),
    logPath: artifacts.proxy_log,
    caOutPath: paths.caCert,
    outputPath: join(artifacts.dir, 'proxy.stdout.txt'),
    env: deps.env,
    standIns: rep.standIns,
    onSpawn: async (spawned) => {
      rep.job.proxy = spawned;
      await writeJobState(paths.state, rep.job);
    },
    onOutputError: writeFailed(rep, "the proxy's output (proxy.stdout.txt)"),
  });
  rep.proxy = proxy;
  await ctx.log(`proxy ${proxy.url} (pid ${proxy.pid})${faulted ? ' with the plan' : ' with no plan (baseline)'}`);
  void proxy.died.then((death) => {
    rep.proxyDeath = errorText(death);
    void ctx.log(`runner error, stopping the sandbox: ${rep.proxyDeath}`).catch(() => undefined);
    rep.stopAgent.abort();
  });
}

/** With the workspace prepared and the proxy up: the sandbox spec the agent and verify share. */
export function sandboxSpec(rep: RepetitionState, ctx: RepetitionContext, deps: RunnerDeps): RepetitionState['sandbox'] {
  const { payload } = ctx;
  const proxy = rep.proxy!;
  const applied = rep.workspace!;
  const env = buildSandboxEnv({
    proxyUrl: proxy.url,
    proxyHost: proxy.host,
    faulted: rep.faulted,
    policyEnv: applied.env,
    passNames: payload.env_names,
    workerEnv: deps.env,
    standIns: rep.standIns,
    canary: rep.canary,
  });
  if (env.missing.length > 0) rep.warnings.push(`not set in the worker's environment, so not passed to the sandbox: ${env.missing.join(', ')}`);
  return {
    image: payload.sandbox_image,
    workspace: rep.paths.worktree,
    // Governance out of the agent's reach: gates, hook settings, policy and plan read-only; the events directory pinned.
    protection: { governanceDir: rep.paths.governance, readOnly: applied.protection.readOnly, pinned: [...applied.protection.pinned, CHAOS_DIR_IN_WORKTREE] },
    envNames: env.names,
    env: env.values,
    proxy: { host: proxy.host, port: proxy.port },
    ...(proxy.caCertPath ? { caCertPath: proxy.caCertPath } : {}),
    labels: rep.labels,
  };
}
