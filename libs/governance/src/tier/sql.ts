// Destructive statements for a database or a datastore, however they are spelled: DROP of a table,
// database, schema, role or user; TRUNCATE; DELETE without WHERE; comments between keywords and any
// case. Quoted literals are data (`SELECT 'drop table x'` drops nothing). Also Redis FLUSHALL/FLUSHDB
// and MongoDB's dropDatabase / drop / unconditioned deleteMany.

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
const DELETE_FROM = /(^|\s)delete\s+from\s/;

/** The destructive statement in an SQL text, as written in lower case, or null. */
export function destructiveSql(sql: string): string | null {
  if (!/(drop|truncate|delete)/i.test(sql)) return null;
  for (const stmt of statements(sql)) {
    const drop = DROP.exec(stmt);
    if (drop) return drop[0];
    if (TRUNCATE.test(stmt)) return 'truncate';
    if (DELETE_FROM.test(stmt) && !/\bwhere\b/.test(stmt)) return 'delete without where';
  }
  return null;
}

const DATASTORE = /\b(flushall|flushdb)\b|\bdropDatabase\s*\(|\.drop\s*\(\s*\)|\bdeleteMany\s*\(\s*\{\s*\}\s*\)|\.remove\s*\(\s*\{\s*\}\s*\)/i;

/** A datastore wipe (Redis FLUSHALL, MongoDB dropDatabase …) in a command or script text, or null. */
export function datastoreWipe(text: string): string | null {
  return DATASTORE.exec(text)?.[0] ?? null;
}
