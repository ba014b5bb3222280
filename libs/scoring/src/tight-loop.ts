// no_tight_loop: the most identical calls (same tool, same input hash) seen within 10 s. One call can
// be reported several times (a gate_decision before it, a tool_call after it, and a second tool_call
// from the MCP proxy), so each (event type, component) is counted as its own stream and the busiest
// stream wins: no call is counted twice. Memory holds only the calls of the last 10 s.
import { canonicalToolName } from '@intutic/faults';
import type { Component, EventOf } from '@intutic/events';
import type { RepetitionFacts } from './records.ts';

export const TIGHT_LOOP_WINDOW_MS = 10_000;

type HashedCall = EventOf<'tool_call'> | EventOf<'gate_decision'>;

const DECISION_STREAM: Record<Component, string> = {
  proxy: 'decision:proxy',
  gate: 'decision:gate',
  sdk: 'decision:sdk',
  'mcp-proxy': 'decision:mcp-proxy',
  runner: 'decision:runner',
};

/** Identical calls of one stream now inside the window. */
interface Identical {
  hash: string;
  stream: string;
  tool: string;
  count: number;
}

export class IdenticalCallTracker {
  /** By input hash first: the hash is already a string, so no key is built per event. */
  private readonly byHash = new Map<string, Identical[]>();
  /**
   * The window's calls in arrival order (events are appended in time order), oldest at `head`: two
   * arrays side by side rather than an object per call, which a million lines would allocate.
   */
  private readonly windowEntries: Identical[] = [];
  private readonly windowTs: number[] = [];
  private head = 0;
  private hashed = 0;
  private max = 0;
  private worst: { tool: string; count: number } | null = null;

  onCall(event: HashedCall): void {
    const hash = event.input_hash;
    if (hash === undefined) return;
    this.hashed++;
    // "Within 10 s": two calls whose timestamps differ by at most 10 000 ms.
    this.evictBefore(event.ts - TIGHT_LOOP_WINDOW_MS);
    const tool = event.tool.startsWith('mcp__') ? canonicalToolName(event.tool) : event.tool;
    const stream = event.type === 'tool_call' ? event.source : DECISION_STREAM[event.source];
    let entries = this.byHash.get(hash);
    if (entries === undefined) {
      entries = [];
      this.byHash.set(hash, entries);
    }
    let entry: Identical | undefined;
    for (const e of entries) {
      if (e.stream === stream && e.tool === tool) {
        entry = e;
        break;
      }
    }
    if (entry === undefined) {
      entry = { hash, stream, tool, count: 0 };
      entries.push(entry);
    }
    entry.count++;
    this.windowEntries.push(entry);
    this.windowTs.push(event.ts);
    if (entry.count > this.max) {
      this.max = entry.count;
      this.worst = { tool, count: this.max };
    }
  }

  facts(): RepetitionFacts['identical_calls'] {
    return { hashed_calls: this.hashed, max_within_10s: this.max, worst: this.worst && { ...this.worst } };
  }

  private evictBefore(oldest: number): void {
    const { windowEntries, windowTs } = this;
    while (this.head < windowTs.length && windowTs[this.head]! < oldest) {
      const entry = windowEntries[this.head++]!;
      if (--entry.count > 0) continue;
      const entries = this.byHash.get(entry.hash)!;
      if (entries.length === 1) this.byHash.delete(entry.hash);
      else entries.splice(entries.indexOf(entry), 1);
    }
    // Drop the evicted prefix once it is most of the array, so memory follows the window.
    if (this.head > 1024 && this.head * 2 > windowTs.length) {
      windowEntries.splice(0, this.head);
      windowTs.splice(0, this.head);
      this.head = 0;
    }
  }
}
