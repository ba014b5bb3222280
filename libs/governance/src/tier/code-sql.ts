// SQL that interpreter code sends to a database: a string literal handed to a driver's execute /
// executescript / exec / query / raw / do / prepare / run (sqlite3, psycopg, pymysql, SQLAlchemy's
// text, node's pg, mysql2, better-sqlite3, knex.raw, Prisma's $executeRawUnsafe, PDO, DBI, Deno's
// sqlite), or a tagged template (sql`…`). A literal that is only printed sends nothing.
import { destructiveSql } from './sql.ts';
import type { VerbHit } from './files.ts';

const STRING = String.raw`'''[\s\S]*?'''|"""[\s\S]*?"""|'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|\x60(?:[^\x60\\]|\\.)*\x60`;
const SENDERS =
  /(?<![\w$])(execute|executescript|executemany|exec|execSync|query|querySync|raw|do|prepare|run|all|get|each|text|sql|execute_sql|exec_query|exec_update|exec_delete|select_all|\$executeRawUnsafe|\$queryRawUnsafe|\$executeRaw|\$queryRaw|unsafe|batch|command)\s*\(\s*[frbuFRBU]{0,2}/g;
const LEADING = new RegExp(`^(?:${STRING})`);

/** The destructive statement interpreter code sends to a database, or null. */
export function codeSqlHit(code: string): VerbHit | null {
  if (!/(drop|truncate|delete|update)/i.test(code)) return null;
  for (const m of code.matchAll(SENDERS)) {
    const lit = LEADING.exec(code.slice(m.index + m[0].length))?.[0];
    if (lit === undefined) continue;
    const body = lit.startsWith("'''") || lit.startsWith('"""') ? lit.slice(3, -3) : lit.slice(1, -1);
    const sql = destructiveSql(body.replace(/\\n/g, '\n'));
    if (sql) return { rule: 'destructive.sql_drop', detail: `code sending ${sql} to a database` };
  }
  for (const m of code.matchAll(/\bsql\s*`([^`]*)`/g)) {
    const sql = destructiveSql(m[1]!);
    if (sql) return { rule: 'destructive.sql_drop', detail: `code sending ${sql} to a database` };
  }
  return null;
}
