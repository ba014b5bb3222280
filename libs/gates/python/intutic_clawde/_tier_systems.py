"""Verbs that destroy history, infrastructure and data (a port of libs/governance/src/tier/systems.ts).

git push --force / reset --hard / clean -f (any abbreviation git accepts), infrastructure teardown
(terraform destroy and state rm, kubectl delete namespace, scaling everything to zero or draining a
node's data, helm uninstall, cloud and hosting CLIs' delete and terminate, docker system/volume prune,
stopping every container), and destructive statements sent to a database or datastore client.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

from ._jsre import js_re, js_trim
from ._tier_files import VerbHit, long_opt
from ._tier_sql import datastore_wipe, destructive_sql

_SHORT = js_re(r"^-[A-Za-z0-9]+$")
_ALIAS = js_re(r"^alias\.([^=]+)=(.*)$", "s")
_GIT_OPTS_WITH_ARG = ("-C", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--super-prefix", "--list-cmds")


def _short_flags(a: str) -> str:
    return a[1:] if _SHORT.search(a) else ""


def git_command(args: Sequence[str]) -> Tuple[Optional[str], List[str], Dict[str, str]]:
    """git's global options and subcommand; `-c alias.x=…` definitions are returned for the caller."""
    aliases: Dict[str, str] = {}
    i = 0
    while i < len(args) and args[i].startswith("-"):
        a = args[i]
        if a in ("-c", "--config-env"):
            m = _ALIAS.search(args[i + 1] if i + 1 < len(args) else "")
            if m:
                aliases[m.group(1)] = m.group(2)
            i += 2
        else:
            i += 2 if a in _GIT_OPTS_WITH_ARG else 1
    return (args[i] if i < len(args) else None), list(args[i + 1 :]), aliases


#: Config keys whose value git runs as a shell command (pager, editor, ssh, diff and merge drivers, ...).
_COMMAND_CONFIG = js_re(
    r"^(core\.(pager|editor|sshcommand|fsmonitor|askpass)|sequence\.editor|diff\.external|pager\..+|gpg(\..+)?\.program|credential(\..+)?\.helper|uploadpack\.packobjectshook|filter\..+\.(clean|smudge|process)|merge\..+\.driver|diff\..+\.(textconv|command)|(diff|merge)tool\..+\.cmd|remote\..+\.(uploadpack|receivepack|vcs))=(.*)$",
    "is",
)


def git_config_commands(args: Sequence[str]) -> List[str]:
    """The shell commands that `git -c key=value ...` makes git run: the values of command-running keys."""
    out: List[str] = []
    i = 0
    while i < len(args) and args[i].startswith("-"):
        if args[i] == "-c":
            i += 1
            m = _COMMAND_CONFIG.search(args[i] if i < len(args) else "")
            if m:
                value = m.group(m.lastindex or 0)
                out.append(value[1:] if value.startswith("!") else value)
        i += 1
    return out


def git_hit(sub: Optional[str], rest: Sequence[str]) -> Optional[VerbHit]:
    opts = [a for a in rest if a.startswith("-")]
    if sub == "push":
        dry = any(long_opt(a, "dry-run", 2) or "n" in _short_flags(a) for a in opts)
        force = any(long_opt(a, "force", 1) or long_opt(a, "force-with-lease", 7) or long_opt(a, "mirror", 2) or "f" in _short_flags(a) for a in opts)
        plus_ref = any(a.startswith("+") for a in rest if not a.startswith("-"))
        if (force or plus_ref) and not dry:
            return ("destructive.git_push_force", "git push rewriting remote history")
    if sub == "reset" and any(long_opt(a, "hard", 1) for a in opts):
        return ("destructive.git_reset_hard", "git reset --hard")
    if sub == "clean":
        force = any(long_opt(a, "force", 1) or "f" in _short_flags(a) for a in opts)
        dry = any(long_opt(a, "dry-run", 1) or "n" in _short_flags(a) for a in opts)
        if force and not dry:
            return ("destructive.git_clean", "git clean -f")
    return None


_K8S_WIDE = js_re(r"^(namespaces?|ns|projects?|all|pv|pvc|persistentvolumes?|persistentvolumeclaims?|nodes?|no|crds?|customresourcedefinitions?)(\/|$|,)")
_AWS_DELETE = js_re(r"^(terminate-|schedule-key-deletion|delete-objects|delete-(bucket|stack|db-|table|cluster|repository|vpc|file-system|function|user|role|hosted-zone|secret|key|volume|snapshot|log-group|distribution|stream|domain|environment|application|service|queue|topic|load-balancer|auto-scaling-group|nat-gateway|subnet|instance|access-key|login-profile|policy|group|security-group|user-pool|identity-pool|rest-api|api|cache-cluster|replication-group|global-table|backup-vault|recovery-point|trail|detector|web-acl|certificate|index|collection|workgroup|project|pipeline|model|endpoint|graph|namespace|registry|image|launch-template|route-table|internet-gateway|transit-gateway|vpn|keyspace))")
_TERRAFORM = js_re(r"^(terraform|tofu|terragrunt|cdktf)$")
_DESTROY_OPT = js_re(r"^--?destroy$")
_SERVERLESS = js_re(r"^(sls|serverless)$")
_KUBECTL = js_re(r"^(kubectl|oc|k)$")
_GSUTIL_RECURSIVE = js_re(r"^-[a-zA-Z]*[rRa]")
_CLOUDS = js_re(r"^(gcloud|az|doctl|linode-cli|hcloud|scw)$")
_CLOUD_DELETE = js_re(r"^(delete(-.+)?|purge)$")
_ALL_FLAG = js_re(r"^-[a-zA-Z]*a[a-zA-Z]*$")
_DESTROY = js_re(r"destroy")
_FLY = js_re(r"^(fly|flyctl)$")
_FIREBASE_DELETE = js_re(r"^(firestore:delete|database:remove|projects:delete|hosting:disable|functions:delete|auth:delete)$")
_VERCEL = js_re(r"^(vercel|vc)$")
_VERCEL_REMOVE = js_re(r"^(remove|rm)$")
_NETLIFY = js_re(r"^(netlify|ntl)$")
_DRAIN_DATA = js_re(r"^--delete-(emptydir|local)-data$")
_DISKUTIL_ERASE = js_re(r"^(erase|zero|secureerase|partitiondisk|reformat|apfs)", "i")
_APFS = js_re(r"^apfs$", "i")
_CONTAINERS = js_re(r"^(docker|podman|nerdctl)$")
_EVERY_CONTAINER = js_re(r"\$\(\s*(docker|podman)\s+(ps|images|container ls)\b[^)]*-[a-zA-Z]*[aq]")
_FILTERED = js_re(r"--filter|\s-f\s")
_STOPS_OR_REMOVES = js_re(r"^(rm|rmi|stop|kill)$")
_CONTAINER_STOPS_OR_REMOVES = js_re(r"^(rm|stop|kill)$")
_COMPOSE = js_re(r"^(docker-compose|podman-compose)$")
_DROP_TOOLS = js_re(r"^(dropdb|dropuser)$")


def _nth(xs: Sequence[str], i: int) -> Optional[str]:
    return xs[i] if 0 <= i < len(xs) else None


def infra_hit(argv: Sequence[str], raw_words: Sequence[str]) -> Optional[VerbHit]:
    """Infrastructure teardown by its CLI."""
    program = argv[0] if argv else ""
    args = list(argv[1:])
    words = [a for a in args if not a.startswith("-")]
    sub = _nth(words, 0)
    sub_text = sub if sub is not None else ""
    teardown = "destructive.infra_teardown"
    if _TERRAFORM.search(program):
        if "destroy" in words or (sub == "apply" and any(_DESTROY_OPT.search(a) for a in args)):
            return (teardown, f"{program} destroy")
        # What the state forgets is no longer managed; a deleted workspace's state is gone.
        if (sub == "state" and _nth(words, 1) == "rm") or (sub == "workspace" and _nth(words, 1) == "delete"):
            return (teardown, f"{program} {sub} {words[1]}")
    if (
        (program == "pulumi" and (sub in ("destroy", "down") or (sub == "stack" and _nth(words, 1) in ("rm", "remove"))))
        or (program == "eksctl" and sub == "delete" and _nth(words, 1) == "cluster")
        or (program == "cdk" and sub == "destroy")
        or (_SERVERLESS.search(program) and sub == "remove")
    ):
        return (teardown, f"{program} {sub}")
    if _KUBECTL.search(program):
        return _kubernetes_hit(program, args, words)
    if program == "helm" and sub_text in ("uninstall", "delete", "del", "un"):
        return (teardown, f"helm {sub}")
    if program == "aws":
        recursive = "--recursive" in args
        if (sub == "s3" and ((_nth(words, 1) == "rm" and recursive) or _nth(words, 1) == "rb")) or any(_AWS_DELETE.search(w) for w in words[1:2]):
            return (teardown, f"aws {' '.join(words[:2])}")
    if program == "gsutil" and (sub == "rb" or (sub == "rm" and any(_GSUTIL_RECURSIVE.search(a) for a in args))):
        return (teardown, f"gsutil {sub}")
    # Any delete (`delete`, `delete-batch`, `purge`) and gcloud's recursive `storage rm`.
    if _CLOUDS.search(program) and any(_CLOUD_DELETE.search(w) for w in words):
        return (teardown, f"{program} … delete")
    if program == "gcloud" and sub == "storage" and _nth(words, 1) == "rm" and any(a in ("-r", "-R", "--recursive") for a in args):
        return (teardown, "gcloud storage rm -r")
    if program == "diskutil" and _DISKUTIL_ERASE.search(sub_text) and not _APFS.search(sub_text):
        return ("destructive.disk_tool", f"diskutil {sub}")
    if _CONTAINERS.search(program):
        return _container_engine_hit(program, args, words, raw_words)
    if _COMPOSE.search(program) and sub == "down" and any(a in ("-v", "--volumes") for a in args):
        return (teardown, f"{program} down -v")
    if _DROP_TOOLS.search(program) or (program == "mysqladmin" and "drop" in words):
        return ("destructive.sql_drop", program)
    return _hosting_hit(program, words, args)


_KUBE_SYSTEM = js_re(r"^(--namespace=|-n=?)kube-system$")


def _kubernetes_hit(program: str, args: Sequence[str], words: Sequence[str]) -> Optional[VerbHit]:
    """kubectl's teardowns: deleting a namespace, every resource or the cluster's storage, scaling everything to zero, draining a node's data."""
    teardown = "destructive.infra_teardown"
    everywhere = any(a in ("--all", "-A", "--all-namespaces") for a in args)
    if "delete" in words and (everywhere or any(_K8S_WIDE.search(w) for w in words[words.index("delete") + 1 :])):
        return (teardown, js_trim(f"{program} delete {' '.join(words[1:])}"))
    zero = any(a == "--replicas=0" or (a == "--replicas" and _nth(args, i + 1) == "0") for i, a in enumerate(args))
    if _nth(words, 0) == "scale" and zero and everywhere:
        return (teardown, f"{program} scale --all --replicas=0")
    # `kubectl get ns -o name | xargs kubectl delete`: a kind the line cannot name may be a namespace (`delete pod $(…)` names its kind).
    if "delete" in words and "\u0000" in (_nth(words, words.index("delete") + 1) or ""):
        return (teardown, f"{program} delete of resources the command line cannot name")
    # The cluster's own components, and nodes the line cannot name (`kubectl cordon $(kubectl get nodes -o name)`: every one).
    in_system = any(_KUBE_SYSTEM.search(a) or (a in ("-n", "--namespace") and _nth(args, i + 1) == "kube-system") for i, a in enumerate(args))
    if "delete" in words and in_system:
        return (teardown, f"{program} delete in kube-system")
    if _nth(words, 0) in ("cordon", "drain", "taint") and ("--all" in args or any("\u0000" in w for w in words[1:])):
        return ("destructive.system_disruption", f"{program} {words[0]} of every node")
    if _nth(words, 0) == "drain" and any(_DRAIN_DATA.search(a) for a in args):
        return (teardown, f"{program} drain deleting pods' data")
    return None


def _hosting_hit(program: str, words: Sequence[str], args: Sequence[str] = ()) -> Optional[VerbHit]:
    """Hosting platforms' teardowns: an app, a site, a project, a database or its collections, a store's keys or secrets."""
    sub = _nth(words, 0) or ""
    second = _nth(words, 1) or ""
    if (program == "heroku" and _DESTROY.search(sub)) or (_FLY.search(program) and "destroy" in words):
        return ("destructive.infra_teardown", f"{program} destroy")
    if (
        (program == "heroku" and sub == "pg:reset")
        or (program == "turso" and sub in ("db", "database") and second in ("destroy", "delete"))
        or (program == "pscale" and sub in ("database", "db") and second == "delete")
        or (program == "neonctl" and sub in ("projects", "databases", "branches") and second in ("delete", "rm"))
        or (program == "influx" and sub in ("bucket", "org") and second == "delete")
        or (program == "vault" and ((sub == "secrets" and second == "disable") or (sub == "kv" and second == "metadata" and _nth(words, 2) == "delete")))
    ):
        return ("destructive.datastore_wipe", f"{program} {' '.join(words[:2])}")
    # Every key: `etcdctl del "" --prefix`, `consul kv delete -recurse` with no prefix.
    if program == "etcdctl" and sub in ("del", "delete") and any(a in ("--prefix", "--from-key") for a in args) and second in ("", "/"):
        return ("destructive.datastore_wipe", "etcdctl del of every key")
    if program == "consul" and sub == "kv" and second == "delete" and any(a in ("-recurse", "--recurse") for a in args) and (_nth(words, 2) or "") in ("", "/"):
        return ("destructive.datastore_wipe", "consul kv delete -recurse of every key")
    if (
        (program == "firebase" and _FIREBASE_DELETE.search(sub))
        or (_VERCEL.search(program) and (_VERCEL_REMOVE.search(sub) or (sub == "project" and _VERCEL_REMOVE.search(second))))
        or (_NETLIFY.search(program) and sub == "sites:delete")
        or (program == "supabase" and sub == "projects" and second == "delete")
    ):
        return ("destructive.infra_teardown", f"{program} {' '.join(words[:2])}")
    return None


def _container_engine_hit(program: str, args: Sequence[str], words: Sequence[str], raw_words: Sequence[str]) -> Optional[VerbHit]:
    """A container engine's teardowns: pruning or resetting its storage, volumes, every container or image removed or stopped, compose down -v."""
    teardown = "destructive.infra_teardown"
    sub = _nth(words, 0) or ""
    second = _nth(words, 1) or ""
    if sub in ("system", "volume") and second == "prune":
        return (teardown, f"{program} {sub} prune")
    if sub == "system" and second == "reset":
        return (teardown, f"{program} system reset")
    if sub == "volume" and second == "rm":
        return (teardown, f"{program} volume rm")
    every = any(w == "\u0005every-container" or (_EVERY_CONTAINER.search(w) is not None and not _FILTERED.search(w)) for w in raw_words)
    # Podman's own `rm --all` / `rm -af`.
    every_named = every or (program == "podman" and any(a == "--all" or _ALL_FLAG.search(a) for a in args))
    if every_named and (_STOPS_OR_REMOVES.search(sub) or (sub == "container" and _CONTAINER_STOPS_OR_REMOVES.search(second))):
        return (teardown, f"{program} {sub} of every container or image")
    if sub == "compose" and second == "down" and any(a in ("-v", "--volumes") for a in args):
        return (teardown, f"{program} compose down -v")
    return None


SQL_CLIENTS = {"psql", "mysql", "mariadb", "sqlite3", "sqlite", "sqlcmd", "clickhouse", "clickhouse-client", "duckdb", "cockroach", "pgcli", "mycli", "litecli", "usql", "sqlplus", "snowsql", "trino", "presto", "spark-sql", "bq", "isql", "cqlsh", "mongo", "mongosh", "redis-cli", "valkey-cli", "keydb-cli", "influx", "surreal", "turso", "wrangler", "supabase", "prisma"}
_NOSQL = js_re(r"^(redis-cli|valkey-cli|keydb-cli|mongo|mongosh)$")


def client_text_hit(program: str, texts: Sequence[str]) -> Optional[VerbHit]:
    """A destructive statement in the text a database client is given (arguments, heredoc, stdin)."""
    for t in texts:
        sql = None if _NOSQL.search(program) else destructive_sql(t)
        if sql:
            return ("destructive.sql_drop", f"{program}: {sql}")
        wipe = datastore_wipe(t)
        if wipe:
            return ("destructive.datastore_wipe", f"{program}: {wipe}")
    return None
