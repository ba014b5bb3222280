// Destructive statements for a database or a datastore, however they are spelled: DROP of a table,
// database, schema, role or user; TRUNCATE; DELETE or UPDATE without WHERE, or with one that holds
// for every row (`WHERE 1=1`); ALTER TABLE … DROP of a column; comments between keywords and any
// case. Quoted literals are data (`SELECT 'drop table x'` drops nothing). Also Redis FLUSHALL/FLUSHDB
// and MongoDB's dropDatabase / drop / unconditioned deleteMany, and Redis SHUTDOWN NOSAVE.

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

/** The destructive statement in an SQL text, as written in lower case, or null. */
export function destructiveSql(sql: string): string | null {
  if (!/(drop|truncate|delete|update)/i.test(sql)) return null;
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
