// Destroying a database through a framework's own tasks rather than SQL: `rails db:drop`,
// `manage.py flush`, `prisma migrate reset`, `artisan migrate:fresh`, `mix ecto.drop`, `flyway clean`,
// `liquibase dropAll`, `flask db downgrade base` …; and the
// places a framework hands code or SQL on: its console (`rails runner CODE`, `manage.py shell -c
// CODE`, `artisan tinker --execute=CODE`), `manage.py dbshell` and `rails dbconsole` (an SQL client
// reading its standard input).
import type { VerbHit } from './files.ts';

const hit = (detail: string): VerbHit => ({ rule: 'destructive.sql_drop', detail });
const RAKE_TASKS = /^db:(drop|reset|purge|truncate_all|schema:load|migrate:reset|structure:load)(\[|:|$)/;
const ARTISAN = /^(migrate:fresh|migrate:reset|migrate:refresh|db:wipe)$/;

/** The argv without a runner in front (`bundle exec`, `python manage.py` → `manage.py`). */
function task(argv: readonly string[]): string[] {
  let a = [...argv];
  if (a[0] === 'bundle' && a[1] === 'exec') a = a.slice(2);
  if (/^(python[\d.]*|php[\d.]*)$/.test(a[0] ?? '')) a = a.slice(1);
  return [(a[0] ?? '').replace(/^.*\//, ''), ...a.slice(1)];
}

export function dbTaskHit(argv: readonly string[]): VerbHit | null {
  const [program = '', ...args] = task(argv);
  const words = args.filter((a) => !a.startsWith('-'));
  if (/^(rails|rake)$/.test(program) && words.some((w) => RAKE_TASKS.test(w))) return hit(`${program} ${words.find((w) => RAKE_TASKS.test(w))}`);
  if (/^(manage\.py|django-admin)$/.test(program) && /^(flush|reset_db|sqlflush_and_run)$/.test(words[0] ?? '')) return hit(`${program} ${words[0]}`);
  if (program === 'flyway' && words.includes('clean')) return hit('flyway clean');
  if (program === 'liquibase' && words.some((w) => /^drop-?all$/i.test(w))) return hit('liquibase dropAll');
  if (program === 'flask' && words[0] === 'db' && words[1] === 'downgrade' && words[2] === 'base') return hit('flask db downgrade base');
  if (program === 'artisan' && ARTISAN.test(words[0] ?? '')) return hit(`artisan ${words[0]}`);
  if (program === 'prisma' && ((words[0] === 'migrate' && words[1] === 'reset') || (words[0] === 'db' && args.includes('--force-reset'))))
    return hit(`prisma ${words.slice(0, 2).join(' ')}`);
  if (/^(sequelize|sequelize-cli)$/.test(program) && /^db:(drop|migrate:undo:all)$/.test(words[0] ?? '')) return hit(`${program} ${words[0]}`);
  if (program === 'knex' && words[0] === 'migrate:rollback' && args.includes('--all')) return hit('knex migrate:rollback --all');
  if (program === 'typeorm' && /^schema:drop$/.test(words[0] ?? '')) return hit('typeorm schema:drop');
  if (program === 'mix' && /^ecto\.(drop|reset)$/.test(words[0] ?? '')) return hit(`mix ${words[0]}`);
  // `alembic -x env=prod downgrade base`: -x and -c take a value.
  const alembic = program === 'alembic' ? args.filter((a, i) => !a.startsWith('-') && !/^(-x|-c|--config|--name|-n)$/.test(args[i - 1] ?? '')) : [];
  if (alembic[0] === 'downgrade' && alembic[1] === 'base') return hit('alembic downgrade base');
  if (program === 'dotnet' && words[0] === 'ef' && words[1] === 'database' && words[2] === 'drop') return hit('dotnet ef database drop');
  if (program === 'supabase' && words[0] === 'db' && words[1] === 'reset') return hit('supabase db reset');
  return null;
}

/** Code a framework's console runs: `rails runner CODE` (Ruby), `manage.py shell -c CODE` (Python), `artisan tinker --execute=CODE` (PHP). */
export function frameworkConsoleCode(argv: readonly string[]): string | null {
  const [program = '', ...args] = task(argv);
  if (program === 'artisan' && args[0] === 'tinker') {
    const at = args.findIndex((a) => a === '--execute' || a.startsWith('--execute='));
    return at === -1 ? null : args[at]!.startsWith('--execute=') ? args[at]!.slice(10) : (args[at + 1] ?? null);
  }
  // Django's `manage.py shell -c CODE` runs Python the same way.
  if (program === 'manage.py' && args[0] === 'shell') {
    const c = args.findIndex((a) => a === '-c' || a === '--command');
    return c === -1 ? null : (args[c + 1] ?? null);
  }
  if (program !== 'rails' || !['runner', 'r'].includes(args[0] ?? '')) return null;
  return args.slice(1).find((a) => !a.startsWith('-')) ?? null;
}

/** A framework command that opens an SQL client on its standard input. */
export function frameworkSqlShell(argv: readonly string[]): boolean {
  const [program = '', ...args] = task(argv);
  return (program === 'manage.py' && args[0] === 'dbshell') || (program === 'rails' && /^(dbconsole|db)$/.test(args[0] ?? ''));
}
