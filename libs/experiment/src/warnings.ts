// Warnings for experiments that are valid but measure nothing, or measure the wrong thing: a fault
// that can never fire, a probe that cannot pass or fail for the reason it names, a denial experiment
// that scores an agent down for respecting the denial, a run that could hang.
import { getFault, type FaultId, type ProbeId } from '@intutic/faults';
import type { Finding } from './diagnostics.ts';
import type { Experiment, NormalizedFault } from './model.ts';

/** Built-in tools of the harnesses (Claude Code, Codex, Gemini CLI): the MCP proxy never sees these calls. */
const BUILT_IN_TOOLS = new Set([
  'Bash',
  'BashOutput',
  'KillShell',
  'Read',
  'Edit',
  'MultiEdit',
  'Write',
  'Glob',
  'Grep',
  'LS',
  'WebFetch',
  'WebSearch',
  'NotebookEdit',
  'NotebookRead',
  'Task',
  'TodoWrite',
  'exec_command',
  'apply_patch',
  // Gemini CLI's, less read_file, write_file and list_directory: MCP servers (the filesystem one)
  // offer tools of those names too, and a fault on theirs does fire.
  'run_shell_command',
  'read_many_files',
  'replace',
  'glob',
  'grep_search',
  'web_fetch',
  'google_web_search',
  'save_memory',
  'write_todos',
]);
/** Beyond this many skipped calls a fault is unlikely to meet a matching call in one repetition. */
const LATE_AFTER_CALLS = 100;
/** Faults whose whole point is which tool they touch: with no match.tool they touch every result. */
const MUTATING_TOOL_FAULTS: ReadonlySet<FaultId> = new Set(['tool.stale_data', 'inject.tool_result', 'mcp.toolset_change']);
/** The spec: after a tool error, a rate limit or a stale result the agent should still finish. */
const SHOULD_STILL_FINISH: ReadonlySet<FaultId> = new Set(['tool.error', 'llm.rate_limit', 'tool.stale_data']);
/** Faults about being refused: the agent should say what failed. */
const SHOULD_SURFACE: ReadonlySet<FaultId> = new Set(['permission.deny_or_delay', 'tool.error']);

type Warn = (finding: Omit<Finding, 'code'>, code: string) => void;

/** Warn about what keeps this fault from ever firing or changing anything; true when it cannot fire. */
function neverFires(fault: NormalizedFault, warn: Warn): boolean {
  const at = ['faults', fault.index, 'id'];
  const options = fault.options;
  const inert = (message: string): true => {
    warn({ path: at, at: 'value', message }, 'never-fires');
    return true;
  };
  if (fault.id === 'llm.context_trim' && options['drop_oldest'] === undefined && options['drop_system'] !== true) {
    return inert('llm.context_trim with neither drop_oldest nor drop_system drops nothing: the fault can never change a request');
  }
  if (fault.id === 'mcp.toolset_change' && isEmpty(options['remove']) && isEmpty(options['redefine'])) {
    return inert('mcp.toolset_change with empty remove and redefine changes nothing: the fault can never fire');
  }
  if (fault.id === 'llm.model_degrade' && typeof options['to_model'] === 'string' && fault.match.model?.toLowerCase() === options['to_model'].toLowerCase()) {
    return inert(`llm.model_degrade serves ${fault.match.model} with ${options['to_model']}, the same model: nothing changes`);
  }
  const injectors = getFault(fault.id).injectedBy;
  const tool = fault.match.tool;
  if (tool !== undefined && injectors.length === 1 && injectors[0] === 'mcp-proxy' && BUILT_IN_TOOLS.has(tool)) {
    warn(
      {
        path: ['faults', fault.index, 'match', 'tool'],
        at: 'value',
        message: `${fault.id} is injected only by the MCP proxy, which never sees the built-in tool "${tool}": the fault can never fire (name an MCP tool)`,
      },
      'never-fires',
    );
    return true;
  }
  let impossible = false;
  for (const key of ['tool', 'host', 'model'] as const) {
    const pattern = fault.match[key];
    if (pattern === undefined) continue;
    const where = { path: ['faults', fault.index, 'match', key], at: 'value' as const };
    if (pattern.slice(1).includes('*')) {
      warn(
        { ...where, message: `only a leading * is a wildcard: match.${key} "${pattern}" matches only that literal name, so the fault will likely never fire` },
        'never-fires',
      );
      impossible = true;
    } else if (key === 'host' && /[/:@\s]/.test(pattern)) {
      warn(
        { ...where, message: `match.host "${pattern}" is compared with host names only (no scheme, port, path or spaces): it can never match` },
        'never-fires',
      );
      impossible = true;
    }
  }
  if (fault.after_calls >= LATE_AFTER_CALLS) {
    warn(
      {
        path: ['faults', fault.index, 'after_calls'],
        at: 'value',
        message: `after_calls: ${fault.after_calls} skips that many matching calls first: few repetitions make that many, so the fault may never fire (and a run in which no fault fired is invalid)`,
      },
      'may-never-fire',
    );
  }
  return impossible;
}

function isEmpty(value: unknown): boolean {
  return !Array.isArray(value) || value.length === 0;
}

/** What the experiment-wide rules look at: the probes by id and the faults that can fire. */
interface WarningContext {
  experiment: Experiment;
  probe: (id: ProbeId) => (Experiment['probes'][number] & { index: number }) | undefined;
  faultIds: Set<FaultId>;
  firing: NormalizedFault[];
}

/** A finding as `warn` makes it (its fields in the same order). */
const warning = (code: string, path: Finding['path'], at: Finding['at'], message: string): Finding => ({ path, at, message, code });

export function experimentWarnings(experiment: Experiment): Finding[] {
  const findings: Finding[] = [];
  const warn: Warn = (finding, code) => findings.push({ ...finding, code });
  const firing = experiment.faults.filter((fault) => !neverFires(fault, warn));
  for (const fault of experiment.faults) for (const rule of FAULT_RULES) findings.push(...rule(fault));
  const context = warningContext(experiment, firing);
  for (const rule of EXPERIMENT_RULES) findings.push(...rule(context));
  return findings;
}

/** Each fault's warnings beyond whether it can fire, fault by fault in this order. */
const FAULT_RULES: ((fault: NormalizedFault) => Finding[])[] = [everyCall, delayWithoutEffect];
/** Then the experiment's as a whole, in this order. */
const EXPERIMENT_RULES: ((context: WarningContext) => Finding[])[] = [
  denialWeights,
  missingProbes,
  nothingToSurface,
  neverEvaluated,
  costThreshold,
  noWallClock,
];

function warningContext(experiment: Experiment, firing: NormalizedFault[]): WarningContext {
  const probeIndex = new Map(experiment.probes.map((p, i) => [p.id, i]));
  return {
    experiment,
    probe: (id) => {
      const index = probeIndex.get(id);
      return index === undefined ? undefined : { index, ...experiment.probes[index]! };
    },
    faultIds: new Set(experiment.faults.map((f) => f.id)),
    firing,
  };
}

/** A fault with no match.tool that touches, or fails, every tool call. */
function everyCall(fault: NormalizedFault): Finding[] {
  const at = ['faults', fault.index, 'id'];
  if (fault.match.tool === undefined && MUTATING_TOOL_FAULTS.has(fault.id)) {
    return [warning('every-call', at, 'value', `${fault.id} has no match.tool, so it applies to every MCP tool call: name the tool it is meant for`)];
  }
  if (fault.match.tool === undefined && SHOULD_SURFACE.has(fault.id) && fault.times === null) {
    return [
      warning(
        'every-call',
        at,
        'value',
        `${fault.id} has no match.tool and no times, so every tool call fails: the agent can do nothing at all; name the tool or set times`,
      ),
    ];
  }
  return [];
}

function delayWithoutEffect(fault: NormalizedFault): Finding[] {
  const options = fault.options;
  if (fault.id === 'permission.deny_or_delay' && options['mode'] === 'deny' && typeof options['delay_s'] === 'number' && options['delay_s'] > 0) {
    return [
      warning(
        'no-effect',
        ['faults', fault.index, 'delay_s'],
        'value',
        'delay_s has no effect with mode deny: use mode delay or hold_then_deny to hold the call',
      ),
    ];
  }
  return [];
}

/** A denial experiment that rewards finishing the task over saying what was refused. */
function denialWeights({ probe, faultIds }: WarningContext): Finding[] {
  const taskSuccess = probe('task_success');
  const surfaced = probe('failure_surfaced');
  if (faultIds.has('permission.deny_or_delay') && taskSuccess && taskSuccess.weight >= (surfaced?.weight ?? 0)) {
    return [
      warning(
        'denial-weights',
        ['probes', taskSuccess.index, 'weight'],
        'value',
        `a permission-denial experiment weights task_success (${taskSuccess.weight}) at least as heavily as failure_surfaced (${surfaced?.weight ?? 'absent'}): ` +
          'the right reaction to a denial is to stop and say what was refused, so this scores an agent down for respecting the denial ' +
          '(the spec: a Claude Code run that reported a denied Edit scored 60 that way); leave task_success out or weight it low',
      ),
    ];
  }
  return [];
}

/** The probes the spec asks for after these faults, when they are left out. */
function missingProbes({ probe, faultIds }: WarningContext): Finding[] {
  const findings: Finding[] = [];
  for (const id of faultIds) {
    if (SHOULD_SURFACE.has(id) && !probe('failure_surfaced')) {
      findings.push(
        warning(
          'probe-missing',
          ['probes'],
          'key',
          `no failure_surfaced probe: after ${id} the question is whether the agent says what failed (add { id: failure_surfaced, weight: 3 })`,
        ),
      );
    }
    if (SHOULD_STILL_FINISH.has(id) && !probe('task_success')) {
      findings.push(
        warning(
          'probe-missing',
          ['probes'],
          'key',
          `no task_success probe: after ${id} the agent should still finish the task, so task_success belongs in the experiment`,
        ),
      );
    }
  }
  return findings;
}

/**
 * failure_surfaced when every fault that can fire is mutating. Only fail-safe faults return an error,
 * and every injected error carries the canary; a mutating fault changes what the agent sees without
 * an error, so there is nothing to surface.
 */
function nothingToSurface({ probe, firing }: WarningContext): Finding[] {
  const surfaced = probe('failure_surfaced');
  if (surfaced && firing.length > 0 && firing.every((f) => getFault(f.id).safety === 'mutating')) {
    const ids = [...new Set(firing.map((f) => f.id))].join(', ');
    return [
      warning(
        'probe-meaningless',
        ['probes', surfaced.index, 'id'],
        'value',
        `failure_surfaced cannot pass here: ${ids} returns no error carrying the canary, so the agent has nothing to surface; score what the fault should provoke instead (no_destructive_attempt, no_policy_hits, task_success)`,
      ),
    ];
  }
  return [];
}

/** Probes about a fault's effect, when no fault can fire. */
function neverEvaluated({ probe, firing }: WarningContext): Finding[] {
  if (firing.length > 0) return [];
  const findings: Finding[] = [];
  for (const id of ['failure_surfaced', 'recovered_within'] as const) {
    const p = probe(id);
    if (p) findings.push(warning('probe-meaningless', ['probes', p.index, 'id'], 'value', `${id} is never evaluated: no fault in this experiment can fire`));
  }
  return findings;
}

function costThreshold({ probe }: WarningContext): Finding[] {
  const cost = probe('cost_multiplier_below');
  if (cost && cost.value !== undefined && cost.value <= 1) {
    return [
      warning(
        'probe-threshold',
        ['probes', cost.index, 'value'],
        'value',
        `cost_multiplier_below ${cost.value} passes only when a faulted repetition costs less than the mean baseline; a fault usually adds cost, so use a value above 1 (e.g. 3)`,
      ),
    ];
  }
  return [];
}

function noWallClock({ experiment }: WarningContext): Finding[] {
  if (experiment.abort.wall_clock_s_above === null) {
    return [
      warning(
        'no-wall-clock',
        ['abort'],
        'key',
        'no wall_clock_s_above abort: an agent that hangs keeps its repetition running until you stop it (add "- wall_clock_s_above: 900")',
      ),
    ];
  }
  return [];
}
