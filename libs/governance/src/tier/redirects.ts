// Redirection targets expanded as the words of a command are (`> "$HOME/.bashrc"`, `f=~/.x; … > $f`),
// so a write through a variable is judged where it lands. Heredoc bodies and `<` inputs stay as written.
import { expandWord, type Scope } from '../expand.ts';
import type { Redirect } from '../shell.ts';

export function expandedRedirects(redirects: Redirect[], scope: Scope): Redirect[] {
  return redirects.flatMap((r) => (r.op.includes('>') && /[$`~{]/.test(r.target) ? expandWord(r.target, scope).map((target) => ({ op: r.op, target })) : [r]));
}
