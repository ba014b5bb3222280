// Teardowns by tools systems.ts does not name: a bucket emptied by a sync (`aws s3 sync empty/
// s3://b --delete`), other clouds' and deployment tools' deletes (oci, PowerShell's Remove-Az…, sam,
// copilot, amplify, eb, cf), images deleted from a registry (crane, skopeo, regctl, oras), a
// package's publication undone or taken from its owners (pnpm/yarn unpublish, npm deprecate, npm
// owner rm, npm dist-tag rm, cargo/gem owner removal), a repository deleted through GitLab's CLI, a
// swarm left, backups deleted (velero), local clusters purged, and every key of a store deleted by
// keys the line cannot name (`redis-cli --scan | xargs redis-cli DEL`).
import { UNKNOWN } from '../paths.ts';
import type { VerbHit } from './files.ts';

const teardown = (detail: string): VerbHit => ({ rule: 'destructive.infra_teardown', detail });

/** PowerShell's cloud modules: Az, AWS Tools, Google Cloud. */
const CLOUD_CMDLETS = /^remove-(az|azure|azurerm|s3|ec2|rds|iam|cfn|lm|ddb|ecr|eks|gce|gcs|gcsbucket|gcsobject)\w*$/i;
/** Clouds whose CLI deletes with a `delete` (or `terminate`) word anywhere. */
const CLOUD_DELETERS = /^(oci|ibmcloud|ic|exo|vultr-cli|civo|upcloud|aliyun|tccli|sam|copilot|amplify)$/;

/** A teardown by one of these tools, or null. */
export function moreTeardownHit(argv: readonly string[]): VerbHit | null {
  const [program = '', ...args] = argv;
  const words = args.filter((a) => !a.startsWith('-'));
  const [sub = '', second = ''] = words;
  if (program === 'aws' && sub === 's3' && second === 'sync' && args.includes('--delete') && /^s3:\/\//.test(words.at(-1) ?? ''))
    return teardown('aws s3 sync --delete into a bucket');
  if (program === 'aws' && words.some((w) => /^batch-delete-/.test(w))) return teardown(`aws ${sub} ${words.find((w) => /^batch-delete-/.test(w))}`);
  if (CLOUD_CMDLETS.test(program)) return teardown(program);
  if (CLOUD_DELETERS.test(program) && words.some((w) => /^(delete|terminate|destroy|rm)$/.test(w))) return teardown(`${program} … delete`);
  if ((program === 'eb' && sub === 'terminate') || (program === 'cf' && /^delete(-space|-org|-service)?$/.test(sub))) return teardown(`${program} ${sub}`);
  if (
    /^(crane|regctl|oras|skopeo)$/.test(program) &&
    (sub === 'delete' || (sub === 'manifest' && second === 'delete') || (sub === 'image' && second === 'delete'))
  )
    return teardown(`${program} ${sub} of a registry's image`);
  if (/^(pnpm|yarn)$/.test(program) && sub === 'unpublish') return teardown(`${program} unpublish`);
  if (program === 'npm' && sub === 'deprecate' && words.length >= 3 && words[2] !== '') return teardown('npm deprecate');
  if (program === 'npm' && ((sub === 'owner' && /^(rm|remove)$/.test(second)) || (sub === 'dist-tag' && /^(rm|remove)$/.test(second))))
    return teardown(`npm ${sub} ${second}`);
  if (
    (program === 'cargo' && sub === 'owner' && args.some((a) => /^(--remove|-r)$/.test(a))) ||
    (program === 'gem' && sub === 'owner' && args.some((a) => /^(--remove|-r)$/.test(a)))
  )
    return teardown(`${program} owner --remove`);
  if (program === 'glab' && sub === 'repo' && /^(delete|rm)$/.test(second)) return teardown('glab repo delete');
  if (
    /^(docker|podman)$/.test(program) &&
    ((sub === 'swarm' && second === 'leave' && args.some((a) => /^(-f|--force)$/.test(a))) || (sub === 'stack' && /^(rm|remove|down)$/.test(second)))
  )
    return teardown(`${program} ${sub} ${second}`);
  if (program === 'velero' && /^(backup|restore|schedule)$/.test(sub) && second === 'delete') return teardown(`velero ${sub} delete`);
  if (
    (program === 'minikube' && sub === 'delete' && args.some((a) => /^--(all|purge)$/.test(a))) ||
    (program === 'kind' && sub === 'delete' && args.includes('--all'))
  )
    return teardown(`${program} delete of every cluster`);
  const del = words.findIndex((w) => /^(del|unlink)$/i.test(w));
  if (/^(redis|valkey|keydb)-cli$/.test(program) && del >= 0 && words.slice(del + 1).some((w) => w.includes(UNKNOWN)))
    return { rule: 'destructive.datastore_wipe', detail: `${program} deleting keys the command line cannot name` };
  return null;
}
