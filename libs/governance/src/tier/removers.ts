// Commands that remove as a side effect of another job: `crontab -r` (the user's whole crontab),
// `tar --remove-files` (the files it archives), `rsync --delete` into a protected place (whatever of
// the destination the source lacks). Each is judged as the removal it amounts to.
import type { Scope } from '../expand.ts';
import { classifyTarget, describePlace } from '../paths.ts';
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

export function removerHit(argv: readonly string[], scope: Scope): VerbHit | null {
  const [program = '', ...args] = argv;
  if (program === 'crontab' && args.some((a) => /^-[a-zA-Z]*r/.test(a)))
    return { rule: 'destructive.protected_file', detail: "crontab -r removing the user's crontab" };
  if (program === 'tar' && args.some((a) => longOpt(a, 'remove-files', 3))) {
    // The archive's own name follows -f; every other operand is removed once archived.
    const archive = args.findIndex((a) => /^-[a-zA-Z]*f$/.test(a) || a === '--file');
    const removed = operandsOf(args.filter((_, i) => i !== archive + 1 || archive === -1));
    const place = protectedPlace(removed, scope);
    if (place) return { rule: 'destructive.rm_recursive', detail: `tar --remove-files of ${place}` };
  }
  if (program === 'rsync' && args.some((a) => longOpt(a, 'delete', 3) || /^--(delete-|del$|remove-source-files)/.test(a))) {
    const place = protectedPlace(operandsOf(args).slice(-1), scope);
    if (place) return { rule: 'destructive.rm_recursive', detail: `rsync --delete into ${place}` };
  }
  return null;
}
