// Deciding a call. Order: the destructive tier (block unless an approved bypass covers the segment
// each hit is in), then the snapshot's enforce rules (block > hold > redact), then warn/shadow rules
// (recorded, not enforced: the decision stays allow). A command line is decided segment by segment:
// a rule counts when it matches any segment, a bypass lowers only the segment it matches, and the
// strictest decision wins. `destructive` reports the tier's match whatever the outcome.
import { hostRuleMatches } from './addresses.ts';
import { newAsks, type DiskAsks } from './disk.ts';
import { canonicalJson } from './hash.ts';
import { canonicalToolNames, pathForms } from './names.ts';
import { compilePattern, isRegexPattern, patternTest } from './patterns.ts';
import { actionStringsOf, commandOf, hostsOf, mapStrings, pathsOf, sqlOf, stringsOf } from './subjects.ts';
import { detectDestructiveHits, type DestructiveHit } from './tier/destructive.ts';
import { fileToolHits } from './tier/file-tools.ts';
import { commandSegments } from './tier/segments.ts';
import { datastoreWipe, destructiveSql } from './tier/sql.ts';
import type { Bypass, GovernanceDecision, Policy, Rule, ToolCallSubject } from './types.ts';

const STRENGTH = { block: 3, hold: 2, redact: 1 } as const;

/** What a rule or a bypass is matched against: one segment of a command line, or the whole call. */
interface Unit {
  forms: string[];
}

interface CallView {
  call: ToolCallSubject;
  tools: string[];
  command: string | null;
  /** The command's segments; for any other call, one unit holding its canonical input. */
  units: Unit[];
  /** The whole command line, matched by a rule only when no single segment is. */
  whole: Unit | null;
}

function view(call: ToolCallSubject): CallView {
  const command = commandOf(call.input);
  const tools = canonicalToolNames(call.tool, call.server);
  if (command === null) return { call, tools, command, units: [{ forms: [canonicalJson(call.input)] }], whole: null };
  const units = commandSegments(command, { cwd: call.cwd, home: call.home });
  // A single command is its own whole; a compound line's whole can be matched but never bypassed.
  return { call, tools, command, units: units.length > 0 ? units : [{ forms: [command] }], whole: units.length > 1 ? { forms: [command] } : null };
}

const matchesAny = (pattern: string, values: string[], options: { path?: boolean; ignoreCase?: boolean } = {}): boolean =>
  values.some((v) => patternTest(pattern, v, options));

/** The units a rule matches (empty: it does not match the call). */
function ruleUnits(rule: Rule, v: CallView): Unit[] {
  const { call } = v;
  if (rule.tool !== undefined && !matchesAny(rule.tool, v.tools)) return [];
  const whole = (hit: boolean): Unit[] => (hit ? [v.whole ?? v.units[0]!] : []);
  switch (rule.subject) {
    case 'tool':
      return whole(matchesAny(rule.pattern, v.tools));
    case 'command': {
      const units = v.command === null ? [] : v.units.filter((u) => matchesAny(rule.pattern, u.forms));
      return units.length > 0 || v.whole === null ? units : whole(matchesAny(rule.pattern, v.whole.forms));
    }
    case 'path':
      return whole(
        matchesAny(
          rule.pattern,
          pathsOf(call.input).flatMap((p) => pathForms(p, call.cwd)),
          { path: true },
        ),
      );
    case 'content':
      return whole(matchesAny(rule.pattern, stringsOf(call.input)));
    case 'host':
      return whole(hostsOf(call.input).some((h) => hostRuleMatches(rule.pattern, h)));
  }
}

function bypassCovers(b: Bypass, ruleId: string, tools: string[], unit: Unit, now: number): boolean {
  if (!patternTest(b.rule, ruleId)) return false;
  if (b.expires_at !== undefined && Date.parse(b.expires_at) <= now) return false;
  if (b.tool !== undefined && !tools.some((t) => patternTest(b.tool!, t))) return false;
  return b.pattern === undefined || unit.forms.some((f) => patternTest(b.pattern!, f));
}

function redact(input: unknown, rules: Rule[]): unknown {
  return rules.reduce((acc, rule) => {
    const mark = `[REDACTED:${rule.id}]`;
    if (rule.subject === 'content' && isRegexPattern(rule.pattern)) {
      const re = compilePattern(rule.pattern);
      const global = new RegExp(re.source, re.flags.includes('g') ? re.flags : re.flags + 'g');
      return mapStrings(acc, (s) => s.replace(global, mark));
    }
    if (rule.subject === 'tool') return mapStrings(acc, () => mark);
    return mapStrings(acc, (s) => (patternTest(rule.pattern, s, { path: rule.subject === 'path', ignoreCase: rule.subject === 'host' }) ? mark : s));
  }, input);
}

interface Matched {
  rule: Rule;
  /** The bypass that covers every unit the rule matched, if one does. */
  bypass: Bypass | undefined;
}

/** Choose among matched rules: strongest unbypassed enforce rule, else a warn, else a shadow rule. */
function resolve(matched: Matched[], input: unknown, destructive: { hits: DestructiveHit[]; bypass: Bypass | undefined }): GovernanceDecision {
  const isDestructive = destructive.hits.length > 0;
  const enforce = matched.filter((m) => m.rule.mode === 'enforce');
  const active = enforce.filter((m) => !m.bypass).map((m) => m.rule);
  const top = [...active].sort((a, b) => STRENGTH[b.action] - STRENGTH[a.action])[0];
  if (top && top.action !== 'redact') {
    return {
      decision: top.action,
      rule: top.id,
      mode: 'enforce',
      destructive: isDestructive,
      reason: top.reason || `${top.action === 'block' ? 'blocked' : 'held'} by rule ${top.id}`,
    };
  }
  if (top) {
    const redactRules = active.filter((r) => r.action === 'redact');
    return {
      decision: 'redact',
      rule: top.id,
      mode: 'enforce',
      destructive: isDestructive,
      reason: top.reason || `redacted by rule ${top.id}`,
      redactedInput: redact(input, redactRules),
    };
  }
  const observed = matched.find((m) => m.rule.mode === 'warn') ?? matched.find((m) => m.rule.mode === 'shadow');
  if (observed) {
    const { rule } = observed;
    return {
      decision: 'allow',
      rule: rule.id,
      mode: rule.mode,
      destructive: isDestructive,
      reason: `${rule.mode}: ${rule.reason || `rule ${rule.id} matched`}`,
    };
  }
  const bypassed = destructive.hits[0]
    ? { id: destructive.hits[0].rule, b: destructive.bypass! }
    : enforce[0]
      ? { id: enforce[0].rule.id, b: enforce[0].bypass! }
      : null;
  if (bypassed) {
    return {
      decision: 'allow',
      rule: bypassed.id,
      mode: 'enforce',
      destructive: isDestructive,
      reason: `allowed by approved bypass ${bypassed.b.id}: ${bypassed.b.reason}`,
      bypass: bypassed.b.id,
    };
  }
  return { decision: 'allow', rule: null, mode: null, destructive: false, reason: 'no rule matched' };
}

const isMcpTool = (call: ToolCallSubject): boolean => call.server !== undefined || call.tool.startsWith('mcp__');

/** Destructive hits of a call: its command line; what a file tool does to the paths it names; for an MCP tool, every string anywhere in its input. */
function destructiveHitsOf(v: CallView, asks?: DiskAsks): DestructiveHit[] {
  const ctx = { cwd: v.call.cwd, home: v.call.home, ...(v.call.disk ? { disk: v.call.disk } : {}), ...(asks ? { asks } : {}) };
  const hits: DestructiveHit[] = v.command !== null ? detectDestructiveHits(v.command, ctx) : [];
  if (v.command !== null && !isMcpTool(v.call)) return hits;
  const forms = [canonicalJson(v.call.input)];
  for (const h of fileToolHits(v.call.tool, v.call.input, ctx)) hits.push({ rule: h.rule as DestructiveHit['rule'], detail: h.detail, forms });
  const strings = isMcpTool(v.call) ? actionStringsOf(v.call.input) : sqlOf(v.call.input);
  for (const s of strings.slice(0, 256)) {
    const sql = destructiveSql(s);
    const wipe = datastoreWipe(s);
    if (sql) hits.push({ rule: 'destructive.sql_drop', detail: sql, forms });
    else if (wipe) hits.push({ rule: 'destructive.datastore_wipe', detail: wipe, forms });
    // Any string of an MCP tool's input is read as a command line, by its words alone: a field that
    // names a file is not a script to read from disk.
    else if (isMcpTool(v.call)) hits.push(...detectDestructiveHits(s, { cwd: ctx.cwd, home: ctx.home }).map((h) => ({ ...h, forms: [...forms, ...h.forms] })));
  }
  return hits;
}

/**
 * What deciding this call would look up on disk, given what `call.disk` already holds: the paths it
 * names, the files it runs, the bare commands it starts. A gate answers them (and the new questions
 * the answers raise) before it decides; the tier itself never reads the disk.
 */
export function diskQuestions(call: ToolCallSubject): { paths: string[]; files: string[]; commands: string[] } {
  const asks = newAsks();
  destructiveHitsOf(view(call), asks);
  return { paths: [...asks.paths], files: [...asks.files], commands: [...asks.commands] };
}

export function decideToolCall(policy: Policy, call: ToolCallSubject): GovernanceDecision {
  const v = view(call);
  const now = Date.now();
  const bypassFor = (ruleId: string, unit: Unit): Bypass | undefined => policy.bypasses.find((b) => bypassCovers(b, ruleId, v.tools, unit, now));
  const hits = destructiveHitsOf(v);
  const open = hits.find((h) => !bypassFor(h.rule, h));
  if (open) return { decision: 'block', rule: open.rule, mode: 'enforce', destructive: true, reason: `destructive command blocked (${open.detail})` };
  const matched: Matched[] = [];
  for (const rule of policy.rules) {
    const units = ruleUnits(rule, v);
    if (units.length === 0) continue;
    const covering = units.map((u) => (u === v.whole ? undefined : bypassFor(rule.id, u)));
    matched.push({ rule, bypass: covering.every(Boolean) ? covering[0] : undefined });
  }
  return resolve(matched, call.input, { hits, bypass: hits[0] ? bypassFor(hits[0].rule, hits[0]) : undefined });
}

/** An outbound connection to `host`, decided by the rules whose subject is `host`. */
export function decideEgress(policy: Policy, host: string): GovernanceDecision {
  const now = Date.now();
  const unit = { forms: [host] };
  const matched = policy.rules
    .filter((r) => r.subject === 'host' && hostRuleMatches(r.pattern, host))
    .map((rule) => ({ rule, bypass: policy.bypasses.find((b) => bypassCovers(b, rule.id, [], unit, now)) }));
  return resolve(matched, host, { hits: [], bypass: undefined });
}
