"""What interpreter code does that its calls' literals do not show (a port of libs/governance/src/tier/code-hidden.ts).

Running code it decodes first (`exec(b64decode(…))`), deleting whatever it finds in the home
directory (`for p in Path.home().rglob('*'): p.unlink()`), writing a home dotfile through a Path
object (`Path('~/.bashrc').expanduser().write_text('')`), and wiping a datastore through a client
library (`redis.Redis().flushall()`, `User.objects.all().delete()`, `deleteMany({})`).
"""
from __future__ import annotations

import re
from typing import Optional

from ._jsre import js_re

_RUNS_CODE = js_re(r"\b(exec|eval|compile|Function|runInThisContext|runInNewContext|instance_eval|class_eval|module_eval|create_function|assert)\s*\(")
_DECODES = js_re(
    r"(b64decode|base64|atob\s*\(|Buffer\.from\([^)]*['\"](base64|hex)['\"]|fromhex|unhexlify|codecs\.decode|decode\(\s*['\"](hex|rot13|rot_13|base64)|zlib|decompress|gzinflate|gzuncompress|str_rot13|pack\(\s*['\"][Hm])"
)
_HOME = (
    r"(?:Path\.home\(\)|pathlib\.Path\.home\(\)|os\.path\.expanduser\(\s*['\"]~/?['\"]\s*\)|os\.homedir\(\)|require\(['\"](?:node:)?os['\"]\)\.homedir\(\)|process\.env\.HOME|"
    r"process\.env\[['\"]HOME['\"]\]|Dir\.home|File\.expand_path\(\s*['\"]~/?['\"]\s*\)|getenv\(\s*['\"]HOME['\"]\s*\)|\$ENV\{HOME\}|"
    r"ENV\[['\"]HOME['\"]\]|os\.environ\[['\"]HOME['\"]\]|\$_SERVER\[['\"]HOME['\"]\])"
)
_HOME_LISTED = js_re(
    r"(?:" + _HOME + r"\s*\.\s*(?:rglob|glob|iterdir|walk)\s*\(|(?:walk|listdir|scandir|iterdir|readdirSync|readdir|children|entries|each_child|opendir)\s*\(\s*"
    + _HOME + r"\s*[),]|" + _HOME + r"\s*(?:\+|\.|,)\s*['\"]/(?:\.[\w.-]+/)?\.?\*|['\"]~/(?:\.[\w.-]+/)?\*+['\"])"
)
# A delete called on each entry, or handed over as the callback (`.forEach(fs.unlinkSync)`).
_DELETES_EACH = js_re(
    r"\b(unlink|unlinkSync|remove|delete|rmtree|rm_rf|rm_r|rm|rmSync|rmdir|rmdirSync|removeSync|rimraf)\b\s*[(!]|['\"]unlink['\"]|\.(unlink|unlinkSync|rmSync|rmdirSync|removeSync)\s*\)"
)
_PATH_OBJECT = js_re(
    r"Path\(\s*(['\"])~/(\.[^'\"/]+)[^'\"]*\1\s*\)(?:\s*\.\s*expanduser\(\s*\))?\s*\.\s*(write_text|write_bytes|unlink|rmdir|touch|rename|replace|open\(\s*['\"][wax])"
)
# A client library or ORM emptying its store: FLUSHALL, dropDatabase, SQLAlchemy's drop_all, knex's dropTable,
# Sequelize's sync({force: true}), Prisma's deleteMany(), Laravel's ->truncate(), Django's flush.
_WIPES = js_re(
    r"\.(flushall|flushdb|flush_all|flushAll|flushDb|drop_database|dropDatabase|drop_all|dropTable|dropTableIfExists|drop_table)\s*\(|\.objects\s*\.\s*all\(\)\s*\.\s*delete\(\)|\.(delete_many|deleteMany|remove)\(\s*\{\s*\}\s*\)|\.deleteMany\(\s*\)|\.(destroy_all|delete_all)\b|\.query\.delete\(\)|\.sync\(\s*\{\s*force\s*:\s*true|->truncate\(\s*\)|call_command\(\s*['\"](flush|reset_db)['\"]"
)


def hidden_code_hit(code: str) -> Optional[tuple]:
    """The hit interpreter code's hidden behaviour adds, or None."""
    if _RUNS_CODE.search(code) and _DECODES.search(code):
        return ("destructive.unresolved_script", "code that runs what it decodes")
    if _HOME_LISTED.search(code) and _DELETES_EACH.search(code):
        return ("destructive.rm_recursive", "code deleting what it finds in the home directory")
    dotfile = _PATH_OBJECT.search(code)
    if dotfile:
        return ("destructive.protected_file", f"{re.sub(r'[(].*', '', dotfile.group(3))} of ~/{dotfile.group(2)}")
    wipe = _WIPES.search(code)
    if wipe:
        return ("destructive.datastore_wipe", f"code wiping a datastore ({re.sub(r'[ ]+', '', wipe.group(0))})")
    return None
