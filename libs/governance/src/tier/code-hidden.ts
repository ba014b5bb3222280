// What interpreter code does that its calls' literals do not show: running code it decodes first
// (`exec(b64decode(…))`, `eval(Buffer.from(…, 'base64'))`), deleting whatever it finds in the home
// directory (`for p in Path.home().rglob('*'): p.unlink()`), writing a home dotfile through a Path
// object (`Path('~/.bashrc').expanduser().write_text('')`), and wiping a datastore through a client
// library or an ORM (`redis.Redis().flushall()`, `User.objects.all().delete()`, `deleteMany({})`,
// `db.drop_all()`, `sequelize.sync({ force: true })`).
import type { VerbHit } from './files.ts';

const RUNS_CODE = /\b(exec|eval|compile|Function|runInThisContext|runInNewContext|instance_eval|class_eval|module_eval|create_function|assert)\s*\(/;
const DECODES =
  /(b64decode|base64|atob\s*\(|Buffer\.from\([^)]*['"](base64|hex)['"]|fromhex|unhexlify|codecs\.decode|decode\(\s*['"](hex|rot13|rot_13|base64)|zlib|decompress|gzinflate|gzuncompress|str_rot13|pack\(\s*['"][Hm])/;

const HOME = String.raw`(?:Path\.home\(\)|pathlib\.Path\.home\(\)|os\.path\.expanduser\(\s*['"]~/?['"]\s*\)|os\.homedir\(\)|require\(['"](?:node:)?os['"]\)\.homedir\(\)|process\.env\.HOME|process\.env\[['"]HOME['"]\]|Dir\.home|File\.expand_path\(\s*['"]~/?['"]\s*\)|getenv\(\s*['"]HOME['"]\s*\)|\$ENV\{HOME\}|ENV\[['"]HOME['"]\]|os\.environ\[['"]HOME['"]\]|\$_SERVER\[['"]HOME['"]\])`;
/** Listing the home directory (or a dot-directory in it) to act on each entry. */
const HOME_LISTED = new RegExp(
  String.raw`(?:${HOME}\s*\.\s*(?:rglob|glob|iterdir|walk)\s*\(|(?:walk|listdir|scandir|iterdir|readdirSync|readdir|children|entries|each_child|opendir)\s*\(\s*${HOME}\s*[),]|${HOME}\s*(?:\+|\.|,)\s*['"]/(?:\.[\w.-]+/)?\.?\*|['"]~/(?:\.[\w.-]+/)?\*+['"])`,
);
/** A delete called on each entry, or handed over as the callback (`.forEach(fs.unlinkSync)`). */
const DELETES_EACH =
  /\b(unlink|unlinkSync|remove|delete|rmtree|rm_rf|rm_r|rm|rmSync|rmdir|rmdirSync|removeSync|rimraf)\b\s*[(!]|['"]unlink['"]|\.(unlink|unlinkSync|rmSync|rmdirSync|removeSync)\s*\)/;
/** A home dotfile written or removed through a path object: `Path('~/.bashrc').expanduser().write_text(…)`. */
const PATH_OBJECT =
  /Path\(\s*(['"])~\/(\.[^'"/]+)[^'"]*\1\s*\)(?:\s*\.\s*expanduser\(\s*\))?\s*\.\s*(write_text|write_bytes|unlink|rmdir|touch|rename|replace|open\(\s*['"][wax])/;
/** A client library or ORM emptying its store: FLUSHALL, dropDatabase, SQLAlchemy's drop_all, knex's dropTable, Sequelize's sync({force: true}), Prisma's deleteMany(), Laravel's ->truncate(), Django's flush. */
const WIPES =
  /\.(flushall|flushdb|flush_all|flushAll|flushDb|drop_database|dropDatabase|drop_all|dropTable|dropTableIfExists|drop_table)\s*\(|\.objects\s*\.\s*all\(\)\s*\.\s*delete\(\)|\.(delete_many|deleteMany|remove)\(\s*\{\s*\}\s*\)|\.deleteMany\(\s*\)|\.(destroy_all|delete_all)\b|\.query\.delete\(\)|\.sync\(\s*\{\s*force\s*:\s*true|->truncate\(\s*\)|call_command\(\s*['"](flush|reset_db)['"]/;

/** The hit interpreter code's hidden behaviour adds, or null. */
export function hiddenCodeHit(code: string): VerbHit | null {
  if (RUNS_CODE.test(code) && DECODES.test(code)) return { rule: 'destructive.unresolved_script', detail: 'code that runs what it decodes' };
  if (HOME_LISTED.test(code) && DELETES_EACH.test(code))
    return { rule: 'destructive.rm_recursive', detail: 'code deleting what it finds in the home directory' };
  const dotfile = PATH_OBJECT.exec(code);
  if (dotfile) return { rule: 'destructive.protected_file', detail: `${dotfile[3]!.replace(/\(.*/, '')} of ~/${dotfile[2]}` };
  const wipe = WIPES.exec(code);
  if (wipe) return { rule: 'destructive.datastore_wipe', detail: `code wiping a datastore (${wipe[0].replace(/\s+/g, '')})` };
  return null;
}
