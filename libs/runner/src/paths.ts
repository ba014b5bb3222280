// Where a repetition's things live. On the worker's machine, under ~/.intutic/chaos/jobs/<job id>/:
// its state file, its worktree, the governance the sandbox mounts read-only (policy, plan), the
// proxy's CA. Next to the report, in <report>.artifacts/: what is kept — events, agent output, verify
// output, proxy log. Names carry the job id so a later worker can tell whose leftovers they are.
import { join } from 'node:path';
import { artifactsDirFor } from '@intutic/report';
import type { ArtifactPaths, RepetitionKind } from '@intutic/queue';
import { SANDBOX_GOVERNANCE_DIR } from '@intutic/workspace';

export const CHAOS_DIR_IN_WORKTREE = '.intutic-chaos';
export const SANDBOX_CHAOS_DIR = `/work/${CHAOS_DIR_IN_WORKTREE}`;
/** The plan as the sandbox sees it: in the read-only governance mount, out of the agent's reach. */
export const SANDBOX_PLAN_PATH = `${SANDBOX_GOVERNANCE_DIR}/plan.json`;

export function jobsRoot(home: string): string {
  return join(home, 'chaos', 'jobs');
}

export interface JobPaths {
  dir: string;
  state: string;
  worktree: string;
  caCert: string;
  /** Inside the worktree (the sandbox sees it under /work/.intutic-chaos): the events, writable. */
  chaosDir: string;
  events: string;
  /** Outside the worktree, mounted read-only at /intutic/governance: the policy files and the plan. */
  governance: string;
  plan: string;
}

export function jobPaths(home: string, jobId: string): JobPaths {
  const dir = join(jobsRoot(home), jobId);
  const worktree = join(dir, 'worktree');
  const chaosDir = join(worktree, CHAOS_DIR_IN_WORKTREE);
  const governance = join(dir, 'governance');
  return {
    dir,
    state: join(dir, 'state.json'),
    worktree,
    caCert: join(dir, 'proxy-ca.pem'),
    chaosDir,
    events: join(chaosDir, 'events.jsonl'),
    governance,
    plan: join(governance, 'plan.json'),
  };
}

export function artifactPaths(reportPath: string, kind: RepetitionKind, index: number): ArtifactPaths {
  const dir = join(artifactsDirFor(reportPath), `rep-${index}-${kind}`);
  return {
    dir,
    events: join(dir, 'events.jsonl'),
    agent_output: join(dir, 'agent.stdout.txt'),
    agent_stderr: join(dir, 'agent.stderr.txt'),
    verify_output: join(dir, 'verify.txt'),
    proxy_log: join(dir, 'proxy.log'),
  };
}

/** Labels on every sandbox container of a job; removeSandboxContainers finds leftovers by them. */
export const JOB_LABEL = 'intutic.chaos.job';
export const RUN_LABEL = 'intutic.chaos.run';
/** The queue (redacted Redis URL and key prefix) the job belongs to: whose lock says it is alive. */
export const QUEUE_LABEL = 'intutic.chaos.queue';

export function queueLabel(queue: { redis: string; prefix: string }): string {
  return `${queue.redis}#${queue.prefix}`;
}

export function containerName(jobId: string, step: 'agent' | 'verify'): string {
  return `intutic-chaos-${jobId}-${step}`;
}
