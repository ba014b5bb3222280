// Destroying what git keeps of the past, beyond a forced push: deleting a remote branch or tag in
// any spelling (`push --delete`, `-d`, `:ref`, `+:ref`, `--prune`), expiring the reflog or pruning
// unreachable objects at once (what would let a lost commit be found again), deleting the default
// branch, `update-ref -d`, `symbolic-ref -d`, `stash clear`, rewriting every commit (filter-branch,
// filter-repo, BFG), removing the workspace's own `.git` or a file of its history (`rm -f .git/HEAD`,
// `truncate -s0 .git/packed-refs`), `git branch -D` of branches the line cannot name.
import type { Scope } from '../expand.ts';
import { absolutePath, isProtectedFile, workspaceOf } from '../paths.ts';
import { longOpt, type VerbHit } from './files.ts';

const hit = (detail: string): VerbHit => ({ rule: 'destructive.git_history', detail });
const shortFlags = (a: string): string => (/^-[A-Za-z0-9]+$/.test(a) ? a.slice(1) : '');
const DEFAULT_BRANCHES = /^(?:(?:refs\/heads\/|origin\/|upstream\/)?(?:main|master|trunk|mainline|default|production|prod))$/;
/** A time that leaves no grace period: `now`, `all`, `0`, a moment ago. */
const AT_ONCE = /^(now|all|0|-?1|\d+\.?(seconds?|minutes?)\.ago)$/i;

function valueOf(args: string[], name: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a.startsWith(`--${name}=`)) return a.slice(name.length + 3);
    if (a === `--${name}`) return args[i + 1] ?? '';
  }
  return undefined;
}

function push(rest: string[]): VerbHit | null {
  const opts = rest.filter((a) => a.startsWith('-'));
  if (opts.some((a) => longOpt(a, 'dry-run', 2) || shortFlags(a).includes('n'))) return null;
  if (opts.some((a) => longOpt(a, 'delete', 2) || shortFlags(a).includes('d'))) return hit('git push deleting a remote ref');
  if (opts.some((a) => longOpt(a, 'prune', 2))) return hit('git push --prune deleting remote refs');
  const refspecs = rest.filter((a) => !a.startsWith('-')).slice(1);
  if (refspecs.some((r) => /^\+?:/.test(r))) return hit('git push deleting a remote ref (:ref)');
  return null;
}

/** A git subcommand (aliases resolved) that destroys history or refs, or null. */
export function gitHistoryHit(sub: string | undefined, rest: string[]): VerbHit | null {
  const opts = rest.filter((a) => a.startsWith('-'));
  const words = rest.filter((a) => !a.startsWith('-'));
  const asksHelp = opts.some((a) => a === '-h' || a === '--help');
  if (asksHelp) return null;
  switch (sub) {
    case 'push':
      return push(rest);
    case 'reflog': {
      if (words[0] === 'delete') return hit('git reflog delete');
      if (words[0] !== 'expire' || opts.some((a) => longOpt(a, 'dry-run', 2) || a === '-n')) return null;
      const when = [valueOf(rest, 'expire'), valueOf(rest, 'expire-unreachable')].filter((x) => x !== undefined);
      return when.some((t) => !/^(never|false)$/i.test(t)) ? hit('git reflog expire') : null;
    }
    case 'gc': {
      const prune = valueOf(rest, 'prune');
      return prune !== undefined && AT_ONCE.test(prune) ? hit(`git gc --prune=${prune}`) : null;
    }
    case 'prune': {
      if (opts.some((a) => longOpt(a, 'dry-run', 2) || shortFlags(a).includes('n'))) return null;
      const expire = valueOf(rest, 'expire');
      return expire === undefined || AT_ONCE.test(expire) ? hit('git prune of unreachable objects') : null;
    }
    case 'branch': {
      const deletes = opts.some((a) => longOpt(a, 'delete', 3) || /^-[a-zA-Z]*[dD]/.test(a));
      const main = words.find((w) => DEFAULT_BRANCHES.test(w));
      if (deletes && main !== undefined) return hit(`git branch deleting the default branch ${main}`);
      // `-D` deletes unmerged work too: a branch the line cannot name may be the default one.
      const force = opts.some((a) => /^-[a-zA-Z]*D/.test(a)) || (deletes && opts.some((a) => longOpt(a, 'force', 3) || /^-[a-zA-Z]*f/.test(a)));
      return force && words.some((w) => w.includes('\u0000')) ? hit('git branch -D of branches the command line cannot name') : null;
    }
    case 'update-ref': {
      // Deleting one named branch or tag is `git branch -D`'s and `git tag -d`'s work; HEAD, the default
      // branch, a remote's refs, any other ref or one the line cannot name is history gone.
      const ref = words[0] ?? '\u0000';
      const everyday = /^refs\/(heads|tags)\/[^\u0000]+$/.test(ref) && !DEFAULT_BRANCHES.test(ref);
      return opts.some((a) => a === '-d' || a === '--delete') && !everyday ? hit(`git update-ref -d ${ref.replace(/\u0000/g, '…')}`) : null;
    }
    case 'symbolic-ref':
      return opts.some((a) => a === '-d' || a === '--delete') ? hit('git symbolic-ref -d') : null;
    case 'stash':
      return words[0] === 'clear' ? hit('git stash clear') : null;
    case 'filter-branch':
      return hit('git filter-branch rewriting every commit');
    case 'filter-repo':
      return opts.some((a) => a === '--analyze' || a === '--dry-run') ? null : hit('git filter-repo rewriting every commit');
    default:
      return null;
  }
}

/** `git checkout [REV] -- F`, `git restore F`, `git stash push -- F`: git writes F back to another copy, its hook settings' too. */
export function gitRestoreHit(sub: string | undefined, rest: string[], scope: Scope): VerbHit | null {
  if (sub !== 'checkout' && sub !== 'restore' && sub !== 'stash') return null;
  const dash = rest.indexOf('--');
  const paths = dash >= 0 ? rest.slice(dash + 1) : sub === 'restore' ? rest.filter((a) => !a.startsWith('-')) : [];
  const file = paths.find((p) => isProtectedFile(scope.dir, p, scope.ctx));
  return file === undefined ? null : { rule: 'destructive.protected_file', detail: `git ${sub} writing ${file}` };
}

/** Inside the workspace's `.git`, the files that are its history or point into it: HEAD, config, packed-refs, refs, objects, reflogs. */
function gitInternal(path: string, scope: Scope): boolean {
  const git = `${workspaceOf(scope.ctx)}/.git`;
  return path.startsWith(`${git}/`) && /^(HEAD|config|packed-refs|refs|objects|logs)(\/|$)/.test(path.slice(git.length + 1));
}

/** The `.git` internal a removal or truncation names (`rm -f .git/HEAD`, `truncate -s0 .git/packed-refs`, `shred -u .git/config`), or undefined. */
function gitInternalRemoved(program: string, args: readonly string[], scope: Scope): string | undefined {
  if (!/^(rm|unlink|shred|truncate|srm)$/.test(program)) return undefined;
  return args.find((a) => !a.startsWith('-') && gitInternal(absolutePath(scope.dir, a, scope.ctx), scope));
}

/** BFG Repo-Cleaner (`bfg …`, `java -jar bfg.jar …`), `rm -r` of the workspace's `.git` or of the parts
 *  that are its history (refs, objects, reflogs), and removing or truncating a file of them or HEAD,
 *  config, packed-refs: `.git/index.lock` or `.git/hooks` stay allowed. */
export function historyToolHit(argv: readonly string[], scope: Scope): VerbHit | null {
  const [program = '', ...args] = argv;
  if (/^bfg(-[\d.]+)?(\.jar)?$/.test(program) && args.some((a) => a.startsWith('-') && !/^--?(h|help|version)$/.test(a)))
    return hit('BFG rewriting every commit');
  if (program === 'java' && args.some((a) => /(^|\/)bfg[^/]*\.jar$/.test(a))) return hit('BFG rewriting every commit');
  if (program === 'rm' && args.some((a) => /^-[a-zA-Z]*[rR]|^--recursive$/.test(a))) {
    const git = `${workspaceOf(scope.ctx)}/.git`;
    const history = (p: string): boolean => p === git || (p.startsWith(`${git}/`) && /^(refs|objects|logs)(\/|$)/.test(p.slice(git.length + 1)));
    const t = args.find((a) => !a.startsWith('-') && history(absolutePath(scope.dir, a, scope.ctx).replace(/\/+$/, '')));
    if (t !== undefined) return hit(`rm -r of the workspace's git history (${t})`);
  }
  const file = gitInternalRemoved(program, args, scope);
  if (file !== undefined) return hit(`${program} of the workspace's git history (${file})`);
  // `find .git -name '*.lock' -delete` clears stale locks; unfiltered, it deletes what it finds.
  const named = args.some((a) => /^-(i?name|i?path|i?regex|i?wholename)$/.test(a));
  if (program === 'find' && !named && args.some((a) => a === '-delete' || a === '-exec' || a === '-execdir')) {
    const roots = args
      .slice(
        0,
        Math.max(
          0,
          args.findIndex((a) => /^[-(!]/.test(a)),
        ),
      )
      .filter((a) => a !== '-H' && a !== '-L' && a !== '-P');
    const git = `${workspaceOf(scope.ctx)}/.git`;
    const root = roots.find((r) => {
      const p = absolutePath(scope.dir, r, scope.ctx).replace(/\/+$/, '');
      return p === git || gitInternal(p, scope);
    });
    if (root !== undefined) return hit(`find deleting in the workspace's git history (${root})`);
  }
  return null;
}
