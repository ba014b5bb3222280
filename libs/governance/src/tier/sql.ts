// Destructive statements for a database or a datastore, however they are spelled: DROP of a table,
// database, schema, role or user; TRUNCATE; DELETE or UPDATE without WHERE, or with one that holds
// for every row (`WHERE 1=1`); ALTER TABLE … DROP of a column; comments between keywords and any
// case. Quoted literals are data (`SELECT 'drop table x'` drops nothing), except where the text runs
// them: a DO block's body and a literal given to EXECUTE, EXEC, sp_executesql or PREPARE … FROM. Also
// Redis FLUSHALL/FLUSHDB and MongoDB's dropDatabase / drop / unconditioned deleteMany, and Redis
// SHUTDOWN NOSAVE.

/** SQL text with comments removed and string literals emptied, statements split on `;`. */
function statements(sql: string): string[] {
  const bare = sql
    .replace(/\/\*[\s\S]*?(\*\/|$)/g, ' ')
    .replace(/--[^\n]*/g, ' ')
    .replace(/'(?:[^']|'')*'?/g, "''")
    .replace(/\$\$[\s\S]*?\$\$/g, "''");
  return bare
    .split(';')
    .map((s) => s.replace(/\s+/g, ' ').trim().toLowerCase())
    .filter((s) => s !== '');
}

const DROP = /\bdrop\s+(table|database|schema|role|user|owned|view|materialized view|keyspace|tablespace|collection)\b/;
const TRUNCATE = /(^|\s)truncate\s+(table\s+)?(only\s+)?[\w"`[]/;
const DELETE_FROM = /(^|[\s(])delete\s+from\s/;
/** An UPDATE statement's own (an upsert's `ON CONFLICT … DO UPDATE SET` is not one). */
const UPDATE = /^update\s+\S+(\s+(as\s+)?\w+)?\s+set\s/;
/** A WHERE that every row meets. */
const ALWAYS = /\bwhere\s+(1\s*=\s*1|true|1|''\s*=\s*''|not\s+false)$/;
/** ALTER TABLE … DROP of a column (`DROP COLUMN x`, MySQL's `DROP x`); a constraint, index or default holds no data. */
const DROP_COLUMN =
  /\balter\s+table\b.*\bdrop\s+(?!(constraint|index|key|default|not|primary|foreign|check|partition|trigger|unique|expression|identity|policy|rule)\b)/;

/** A DO block's body (`DO $$ … $$`, `DO $tag$ … $tag$`). */
const DO_BLOCK = /\bdo\s+(?:language\s+\w+\s+)?(\$\w*\$)([\s\S]*?)\1/gi;
/** A literal run as a statement: `EXECUTE 'DROP TABLE ' || t`, `EXECUTE format('…')`, `EXEC('…')`, `sp_executesql N'…'`, `PREPARE s FROM '…'`. */
const EXECUTED_LITERAL = /\b(?:execute(?:\s+immediate)?|exec|sp_executesql|prepare\s+\w+\s+from)\s*\(?\s*(?:format\s*\(\s*)?N?'((?:[^']|'')*)'/gi;

/** A literal that starts a statement the text builds (`'TRUNCATE ' || t`), with a name where the rest is joined on. */
const built = (literal: string): string => `${literal.replace(/''/g, "'")} x`;

/** The parts of an SQL text that run as statements although quoted. */
function executedText(sql: string): string[] {
  return [...[...sql.matchAll(DO_BLOCK)].map((m) => m[2]!), ...[...sql.matchAll(EXECUTED_LITERAL)].map((m) => built(m[1]!))];
}

/** The string literals of an SQL text: the statements a query writes (`SELECT 'DROP TABLE ' || name …`) when its output is run. */
export function sqlLiterals(sql: string): string[] {
  return [...sql.matchAll(/'((?:[^']|'')*)'/g)].map((m) => built(m[1]!));
}

/** The destructive statement in an SQL text, as written in lower case, or null. */
export function destructiveSql(sql: string, depth = 0): string | null {
  if (!/(drop|truncate|delete|update)/i.test(sql)) return null;
  for (const inner of depth < 3 ? executedText(sql) : []) {
    const hit = destructiveSql(inner, depth + 1);
    if (hit) return hit;
  }
  for (const stmt of statements(sql)) {
    const drop = DROP.exec(stmt);
    if (drop) return drop[0];
    if (TRUNCATE.test(stmt)) return 'truncate';
    const verb = DELETE_FROM.test(stmt) ? 'delete' : UPDATE.test(stmt) ? 'update' : null;
    if (verb && !/\bwhere\b/.test(stmt)) return `${verb} without where`;
    if (verb && ALWAYS.test(stmt)) return `${verb} where every row matches`;
    if (DROP_COLUMN.test(stmt)) return 'alter table drop column';
  }
  return null;
}

const DATASTORE =
  /\b(flushall|flushdb|shutdown\s+nosave)\b|\bdropDatabase\s*\(|\.drop\s*\(\s*\)|\bdeleteMany\s*\(\s*\{\s*\}\s*\)|\.remove\s*\(\s*\{\s*\}\s*\)/i;

/** A datastore wipe (Redis FLUSHALL, MongoDB dropDatabase …) in a command or script text, or null. */
export function datastoreWipe(text: string): string | null {
  return DATASTORE.exec(text)?.[0] ?? null;
}
