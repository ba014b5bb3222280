// Deciding a call. Order: the destructive tier (block unless an approved bypass covers it), then the
// snapshot's enforce rules (block > hold > redact; a bypass lets a match through), then warn/shadow
// rules (recorded, not enforced: the decision stays allow). `destructive` reports the tier's match
// whatever the outcome.
import { canonicalJson } from './hash.ts';
import { detectDestructiveCommand, SQL_DROP, type DestructiveHit } from './destructive.ts';
import { canonicalToolNames, pathForms } from './names.ts';
import { normalizedSegments } from './normalize.ts';
import { compilePattern, isRegexPattern, patternTest } from './patterns.ts';
import { parseShell } from './shell.ts';
import { commandOf, hostsOf, mapStrings, pathsOf, sqlOf, stringsOf } from './subjects.ts';
import type { Bypass, GovernanceDecision, Policy, Rule, ToolCallSubject } from './types.ts';

const STRENGTH = { block: 3, hold: 2, redact: 1 } as const;

interface CallView {
  call: ToolCallSubject;
  command: string | null;
  /** The command line per simple command, normalized; plus the raw line. */
  commandForms: string[];
}

function view(call: ToolCallSubject): CallView {
  const command = commandOf(call.input);
  return { call, command, commandForms: command === null ? [] : [command, ...normalizedSegments(parseShell(command))] };
}

function matchesAny(pattern: string, values: string[], options: { path?: boolean; ignoreCase?: boolean } = {}): boolean {
  return values.some((v) => patternTest(pattern, v, options));
}

function ruleMatches(rule: Rule, v: CallView): boolean {
  const { call } = v;
  const tools = canonicalToolNames(call.tool, call.server);
  if (rule.tool !== undefined && !matchesAny(rule.tool, tools)) return false;
  switch (rule.subject) {
    case 'tool':
      return matchesAny(rule.pattern, tools);
    case 'command':
      return matchesAny(rule.pattern, v.commandForms);
    case 'path':
      return matchesAny(rule.pattern, pathsOf(call.input).flatMap((p) => pathForms(p, call.cwd)), { path: true });
    case 'content':
      return matchesAny(rule.pattern, stringsOf(call.input));
    case 'host':
      return matchesAny(rule.pattern, hostsOf(call.input), { ignoreCase: true });
  }
}

function bypassCovers(b: Bypass, ruleId: string, subject: { tool?: string[]; forms: string[] }, now: number): boolean {
  if (!patternTest(b.rule, ruleId)) return false;
  if (b.expires_at !== undefined && Date.parse(b.expires_at) <= now) return false;
  if (b.tool !== undefined && !(subject.tool ?? []).some((t) => patternTest(b.tool!, t))) return false;
  return b.pattern === undefined || subject.forms.some((f) => patternTest(b.pattern!, f));
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

/** Choose among matched rules: strongest unbypassed enforce rule, else a warn, else a shadow rule. */
function resolve(matched: Rule[], bypassOf: (ruleId: string) => Bypass | undefined, input: unknown, destructive: DestructiveHit | null): GovernanceDecision {
  const isDestructive = destructive !== null;
  const enforce = matched.filter((r) => r.mode === 'enforce');
  const active = enforce.filter((r) => !bypassOf(r.id));
  const top = active.sort((a, b) => STRENGTH[b.action] - STRENGTH[a.action])[0];
  if (top && top.action !== 'redact') {
    return { decision: top.action, rule: top.id, mode: 'enforce', destructive: isDestructive, reason: top.reason || `${top.action === 'block' ? 'blocked' : 'held'} by rule ${top.id}` };
  }
  if (top) {
    const redactRules = active.filter((r) => r.action === 'redact');
    return { decision: 'redact', rule: top.id, mode: 'enforce', destructive: isDestructive, reason: top.reason || `redacted by rule ${top.id}`, redactedInput: redact(input, redactRules) };
  }
  const observed = matched.find((r) => r.mode === 'warn') ?? matched.find((r) => r.mode === 'shadow');
  if (observed) {
    return { decision: 'allow', rule: observed.id, mode: observed.mode, destructive: isDestructive, reason: `${observed.mode}: ${observed.reason || `rule ${observed.id} matched`}` };
  }
  const bypassedId = destructive?.rule ?? enforce[0]?.id;
  if (bypassedId !== undefined) {
    const b = bypassOf(bypassedId)!;
    return { decision: 'allow', rule: bypassedId, mode: 'enforce', destructive: isDestructive, reason: `allowed by approved bypass ${b.id}: ${b.reason}`, bypass: b.id };
  }
  return { decision: 'allow', rule: null, mode: null, destructive: false, reason: 'no rule matched' };
}

function destructiveHitOf(v: CallView): DestructiveHit | null {
  const ctx = { cwd: v.call.cwd, home: v.call.home };
  if (v.command !== null) return detectDestructiveCommand(v.command, ctx);
  const sql = sqlOf(v.call.input).find((s) => SQL_DROP.test(s));
  return sql === undefined ? null : { rule: 'destructive.sql_drop', detail: SQL_DROP.exec(sql)![0] };
}

export function decideToolCall(policy: Policy, call: ToolCallSubject): GovernanceDecision {
  const v = view(call);
  const now = Date.now();
  const subject = { tool: canonicalToolNames(call.tool, call.server), forms: v.command !== null ? v.commandForms : [canonicalJson(call.input)] };
  const bypassOf = (ruleId: string): Bypass | undefined => policy.bypasses.find((b) => bypassCovers(b, ruleId, subject, now));
  const destructive = destructiveHitOf(v);
  if (destructive && !bypassOf(destructive.rule)) {
    return { decision: 'block', rule: destructive.rule, mode: 'enforce', destructive: true, reason: `destructive command blocked (${destructive.detail})` };
  }
  return resolve(policy.rules.filter((r) => ruleMatches(r, v)), bypassOf, call.input, destructive);
}

/** An outbound connection to `host`, decided by the rules whose subject is `host`. */
export function decideEgress(policy: Policy, host: string): GovernanceDecision {
  const now = Date.now();
  const bypassOf = (ruleId: string): Bypass | undefined => policy.bypasses.find((b) => bypassCovers(b, ruleId, { forms: [host] }, now));
  const matched = policy.rules.filter((r) => r.subject === 'host' && patternTest(r.pattern, host, { ignoreCase: true }));
  return resolve(matched, bypassOf, host, null);
}
