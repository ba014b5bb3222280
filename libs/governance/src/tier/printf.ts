// What `printf FORMAT ARGS…` and `echo -e` print, so a command word spelled in escapes
// (`$(printf "\x72m")`, `$(printf 'r%s' m)`) is read as the word it makes.

/** Backslash escapes as printf's format (and `%b`, `echo -e`) reads them. */
export function printfEscapes(s: string): string {
  return s.replace(/\\(x[0-9a-fA-F]{1,2}|0?[0-7]{1,3}|u[0-9a-fA-F]{1,4}|.)/g, (all, e: string) => {
    if (e[0] === 'x' || e[0] === 'u') return e.length > 1 ? String.fromCharCode(parseInt(e.slice(1), 16)) : all;
    if (/^[0-7]+$/.test(e)) return String.fromCharCode(parseInt(e, 8));
    return { n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', e: '\x1b', f: '\f', v: '\v', '\\': '\\', '"': '"', "'": "'" }[e] ?? all;
  });
}

/** printf's output: the format applied to the arguments, repeated while arguments remain. */
export function printfOutput(format: string, args: readonly string[]): string {
  let out = '';
  let rest = [...args];
  for (let round = 0; round < 16; round++) {
    let used = 0;
    out += format.replace(/%(%|[-+ #0]*\d*(?:\.\d+)?([sbdiouxXcqfeg]))/g, (_, spec: string, conv: string | undefined) => {
      if (spec === '%') return '%';
      const arg = rest[used++] ?? '';
      if (conv === 'b') return printfEscapes(arg);
      if (conv === 'c') return arg.slice(0, 1);
      return arg;
    });
    rest = rest.slice(used);
    if (used === 0 || rest.length === 0) break;
  }
  return printfEscapes(out);
}
