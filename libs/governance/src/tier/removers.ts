// Commands that remove as a side effect of another job: `crontab -r` (the user's whole crontab),
// `tar --remove-files` (the files it archives), `rsync --delete` into a protected place (whatever of
// the destination the source lacks), `rsync --remove-source-files` of one (its files, once copied),
// `zip -m` (the files it moves into the archive), `git rm -r` of the whole tree (not `--cached`),
// deleting secret keys from a keyring (`gpg --delete-secret-keys`, macOS `security delete-keychain`)
// or an entry of the kubeconfig (`kubectl config delete-context`). Each is judged as the removal it
// amounts to.
import type { Scope } from '../expand.ts';
import { classifyTarget, describePlace, workspaceOf } from '../paths.ts';
import { longOpt, type VerbHit } from './files.ts';
import { isHomeDotEntry } from './harness-config.ts';

const operandsOf = (args: string[]): string[] => {
  const dashDash = args.indexOf('--');
  return dashDash === -1 ? args.filter((a) => !a.startsWith('-')) : [...args.slice(0, dashDash).filter((a) => !a.startsWith('-')), ...args.slice(dashDash + 1)];
};

function protectedPlace(paths: string[], scope: Scope): string | null {
  for (const p of paths) {
    const place = classifyTarget(scope.dir, p, scope.ctx);
    if (place) return `${describePlace(place)} (${p})`;
    if (isHomeDotEntry(scope.dir, p, scope)) return p;
  }
  return null;
}

/** `git [-C dir] [-c k=v] rm -r PATHSPEC…` removing files from the work tree (not --cached, not a dry run): its pathspecs. */
function gitRemoved(args: string[]): string[] {
  let i = 0;
  while (i < args.length && args[i]!.startsWith('-')) i += ['-C', '-c', '--git-dir', '--work-tree', '--namespace'].includes(args[i]!) ? 2 : 1;
  if (args[i] !== 'rm') return [];
  const rest = args.slice(i + 1);
  const opts = rest.filter((a) => a.startsWith('-') && a !== '--');
  const recursive = opts.some((a) => a === '-r' || /^-[a-zA-Z]*r/.test(a));
  if (!recursive || opts.some((a) => a === '--cached' || a === '-n' || a === '--dry-run' || /^-[a-zA-Z]*n/.test(a))) return [];
  return operandsOf(rest);
}

export function removerHit(argv: readonly string[], scope: Scope): VerbHit | null {
  const [program = '', ...args] = argv;
  if (program === 'git') {
    // `:/` and `:(top)` name the top of the work tree, wherever the command runs.
    const top = (p: string): string => (/^:(\/|\(top\))\*?$/.test(p) ? workspaceOf(scope.ctx) : p);
    const place = protectedPlace(gitRemoved(args).map(top), scope);
    if (place) return { rule: 'destructive.rm_recursive', detail: `git rm -r of ${place}` };
  }
  if (program === 'zip' && args.some((a) => a === '--move' || /^-[a-zA-Z]*m/.test(a))) {
    // The archive is the first operand; every other is moved into it: removed.
    const place = protectedPlace(operandsOf(args).slice(1), scope);
    if (place) return { rule: 'destructive.rm_recursive', detail: `zip -m of ${place}` };
  }
  if (/^gpg2?$/.test(program) && args.some((a) => /^--delete-secret-(keys?|and-public-keys?)$/.test(a)))
    return { rule: 'destructive.protected_file', detail: `${program} deleting secret keys from the keyring` };
  if (program === 'security' && /^delete-(keychain|identity|certificate|generic-password|internet-password)$/.test(args[0] ?? ''))
    return { rule: 'destructive.protected_file', detail: `security ${args[0]}` };
  if (/^(kubectl|oc)$/.test(program) && args[0] === 'config' && /^(delete-(context|cluster|user)|unset)$/.test(args[1] ?? ''))
    return { rule: 'destructive.protected_file', detail: `${program} config ${args[1]}: an entry of the kubeconfig` };
  if (program === 'crontab' && args.some((a) => /^-[a-zA-Z]*r/.test(a)))
    return { rule: 'destructive.protected_file', detail: "crontab -r removing the user's crontab" };
  if (program === 'tar' && args.some((a) => longOpt(a, 'remove-files', 3))) {
    // The archive's own name follows -f; every other operand is removed once archived.
    const archive = args.findIndex((a) => /^-[a-zA-Z]*f$/.test(a) || a === '--file');
    const removed = operandsOf(args.filter((_, i) => i !== archive + 1 || archive === -1));
    const place = protectedPlace(removed, scope);
    if (place) return { rule: 'destructive.rm_recursive', detail: `tar --remove-files of ${place}` };
  }
  if (program === 'rsync' && args.some((a) => longOpt(a, 'remove-source-files', 3))) {
    // Every file of the sources is removed once copied: a move of the tree's files.
    const place = protectedPlace(operandsOf(args).slice(0, -1), scope);
    if (place) return { rule: 'destructive.rm_recursive', detail: `rsync --remove-source-files of ${place}` };
  }
  if (program === 'rsync' && args.some((a) => longOpt(a, 'delete', 3) || /^--(delete-|del$)/.test(a))) {
    const place = protectedPlace(operandsOf(args).slice(-1), scope);
    if (place) return { rule: 'destructive.rm_recursive', detail: `rsync --delete into ${place}` };
  }
  return null;
}
