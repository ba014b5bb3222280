// The spec's abort conditions as a pure judge: fed the events of one repetition in order and the
// clock, it says when a condition is met. destructive_attempt: a gate decision marked a call
// destructive, blocked or not; cost_usd_above: the summed model cost exceeds the ceiling;
// wall_clock_s_above: the agent has run longer than that.
import type { ChaosEvent } from '@intutic/events';
import type { AbortSettings } from '@intutic/experiment';
import type { AbortRecord } from '@intutic/queue';

export class AbortConditions {
  private readonly settings: AbortSettings;
  private readonly startedAt: number;
  private costUsd = 0;

  constructor(settings: AbortSettings, agentStartedAt: number) {
    this.settings = settings;
    this.startedAt = agentStartedAt;
  }

  get cost(): number {
    return this.costUsd;
  }

  /** The condition this event meets, if any. */
  observe(event: ChaosEvent): AbortRecord | null {
    if (event.type === 'gate_decision' && event.destructive && this.settings.destructive_attempt) {
      return {
        condition: 'destructive_attempt',
        detail: `a gate marked a ${event.tool} call destructive (decision: ${event.decision}${event.reason ? `; ${event.reason}` : ''})`.slice(0, 480),
      };
    }
    if (event.type === 'llm_call') {
      this.costUsd += event.cost_usd;
      if (this.costUsd > this.settings.cost_usd_above) {
        return { condition: 'cost_usd_above', detail: `the model cost reached $${this.costUsd.toFixed(4)}, over the $${this.settings.cost_usd_above} ceiling` };
      }
    }
    return null;
  }

  /** wall_clock_s_above, judged against `now`. */
  checkClock(now: number): AbortRecord | null {
    const limit = this.settings.wall_clock_s_above;
    if (limit === null) return null;
    const ranS = (now - this.startedAt) / 1000;
    return ranS > limit ? { condition: 'wall_clock_s_above', detail: `the agent ran ${ranS.toFixed(1)} s, longer than ${limit} s` } : null;
  }

  /** When the wall clock condition will be met, for a timer; null when there is none. */
  deadline(): number | null {
    return this.settings.wall_clock_s_above === null ? null : this.startedAt + this.settings.wall_clock_s_above * 1000;
  }
}
