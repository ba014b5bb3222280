"""Teardowns by tools _tier_systems.py does not name (a port of libs/governance/src/tier/more-teardowns.ts).

A bucket emptied by a sync (`aws s3 sync empty/ s3://b --delete`), other clouds' and deployment
tools' deletes (oci, PowerShell's Remove-Az…, sam, copilot, amplify, eb, cf), images deleted from a
registry (crane, skopeo, regctl, oras), a package's publication undone or taken from its owners
(pnpm/yarn unpublish, npm deprecate, npm owner rm, npm dist-tag rm, cargo/gem owner removal), a
repository deleted through GitLab's CLI, a swarm left, backups deleted (velero), local clusters
purged, and every key of a store deleted by keys the line cannot name (`redis-cli --scan | xargs
redis-cli DEL`).
"""
from __future__ import annotations

from typing import Optional, Sequence

from ._jsre import js_re
from ._paths import UNKNOWN
from ._tier_files import VerbHit

#: PowerShell's cloud modules: Az, AWS Tools, Google Cloud.
_CLOUD_CMDLETS = js_re(r"^remove-(az|azure|azurerm|s3|ec2|rds|iam|cfn|lm|ddb|ecr|eks|gce|gcs|gcsbucket|gcsobject)\w*$", "i")
#: Clouds whose CLI deletes with a `delete` (or `terminate`) word anywhere.
_CLOUD_DELETERS = js_re(r"^(oci|ibmcloud|ic|exo|vultr-cli|civo|upcloud|aliyun|tccli|sam|copilot|amplify)$")
_DELETE_WORD = js_re(r"^(delete|terminate|destroy|rm)$")
_S3 = js_re(r"^s3:\/\/")
_BATCH_DELETE = js_re(r"^batch-delete-")
_CF_DELETE = js_re(r"^delete(-space|-org|-service)?$")
_REGISTRY_TOOLS = js_re(r"^(crane|regctl|oras|skopeo)$")
_RM = js_re(r"^(rm|remove)$")
_REMOVE_OPTION = js_re(r"^(--remove|-r)$")
_STACK_DOWN = js_re(r"^(rm|remove|down)$")
_BACKUPS = js_re(r"^(backup|restore|schedule)$")
_EVERY_CLUSTER = js_re(r"^--(all|purge)$")
_REDIS = js_re(r"^(redis|valkey|keydb)-cli$")
_DEL = js_re(r"^(del|unlink)$", "i")


def _teardown(detail: str) -> VerbHit:
    return ("destructive.infra_teardown", detail)


def more_teardown_hit(argv: Sequence[str]) -> Optional[VerbHit]:
    """A teardown by one of these tools, or None."""
    program = argv[0] if argv else ""
    args = list(argv[1:])
    words = [a for a in args if not a.startswith("-")]
    sub = words[0] if words else ""
    second = words[1] if len(words) > 1 else ""
    if program == "aws" and sub == "s3" and second == "sync" and "--delete" in args and _S3.search(words[-1]):
        return _teardown("aws s3 sync --delete into a bucket")
    batch = next((w for w in words if _BATCH_DELETE.search(w)), None)
    if program == "aws" and batch is not None:
        return _teardown(f"aws {sub} {batch}")
    if _CLOUD_CMDLETS.search(program):
        return _teardown(program)
    if _CLOUD_DELETERS.search(program) and any(_DELETE_WORD.search(w) for w in words):
        return _teardown(f"{program} … delete")
    if (program == "eb" and sub == "terminate") or (program == "cf" and _CF_DELETE.search(sub)):
        return _teardown(f"{program} {sub}")
    if _REGISTRY_TOOLS.search(program) and (sub == "delete" or (sub in ("manifest", "image") and second == "delete")):
        return _teardown(f"{program} {sub} of a registry's image")
    if program in ("pnpm", "yarn") and sub == "unpublish":
        return _teardown(f"{program} unpublish")
    if program == "npm" and sub == "deprecate" and len(words) >= 3 and words[2] != "":
        return _teardown("npm deprecate")
    if program == "npm" and sub in ("owner", "dist-tag") and _RM.search(second):
        return _teardown(f"npm {sub} {second}")
    if program in ("cargo", "gem") and sub == "owner" and any(_REMOVE_OPTION.search(a) for a in args):
        return _teardown(f"{program} owner --remove")
    if program == "glab" and sub == "repo" and second in ("delete", "rm"):
        return _teardown("glab repo delete")
    swarm = sub == "swarm" and second == "leave" and any(a in ("-f", "--force") for a in args)
    if program in ("docker", "podman") and (swarm or (sub == "stack" and _STACK_DOWN.search(second))):
        return _teardown(f"{program} {sub} {second}")
    if program == "velero" and _BACKUPS.search(sub) and second == "delete":
        return _teardown(f"velero {sub} delete")
    if (program == "minikube" and sub == "delete" and any(_EVERY_CLUSTER.search(a) for a in args)) or (program == "kind" and sub == "delete" and "--all" in args):
        return _teardown(f"{program} delete of every cluster")
    deleting = next((i for i, w in enumerate(words) if _DEL.search(w)), -1)
    if _REDIS.search(program) and deleting >= 0 and any(UNKNOWN in w for w in words[deleting + 1 :]):
        return ("destructive.datastore_wipe", f"{program} deleting keys the command line cannot name")
    return None
