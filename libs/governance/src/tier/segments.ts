// The segments of a command line: every simple command in it (chains, pipes, subshells,
// substitutions, scripts handed to `bash -c`, `eval`, `sudo sh -c` …), each as written and
// normalized. Rules are matched per segment and a bypass lowers the decision of the segment it
// matches only, so an approved `git push --force origin feature` never covers what is chained to it.
import { expandArgv, newScope } from '../expand.ts';
import { effectiveCommand } from '../normalize.ts';
import { workspaceOf, type PathContext } from '../paths.ts';
import { parseShell, type ShellScript } from '../shell.ts';

export interface Segment {
  /** The segment as written, then normalized (wrappers removed, words single-spaced). */
  forms: string[];
}

const MAX_DEPTH = 8;

export function commandSegments(command: string, ctx: PathContext = {}): Segment[] {
  const scope = newScope(ctx, workspaceOf(ctx));
  const out: Segment[] = [];
  const visit = (script: ShellScript, depth: number): void => {
    if (depth > MAX_DEPTH) return;
    for (const p of script.pipelines) {
      for (const c of p.commands) {
        if (c.group) visit(c.group, depth + 1);
        for (const sub of c.substitutions) visit(sub, depth + 1);
        const forms = new Set([c.raw]);
        for (const argv of expandArgv(c.argv, scope, c.split).slice(0, 4)) {
          const eff = effectiveCommand(argv);
          if (eff.argv.length > 0) forms.add(eff.argv.join(' '));
          for (const i of eff.inner) {
            if (i.kind === 'shell') visit(parseShell(i.text ?? ''), depth + 1);
            if (i.kind === 'exec' && i.args?.length) out.push({ forms: [i.args.join(' ')] });
          }
        }
        forms.delete('');
        if (forms.size > 0) out.push({ forms: [...forms] });
      }
    }
  };
  visit(parseShell(command), 0);
  return out;
}
