// Other names of a directory that the kernel gives: `/proc/<pid>/root` is that process's `/`,
// `/proc/self/cwd` is the current directory, `/proc/<other pid>/cwd` and an open descriptor
// (`/dev/fd/3`, `/proc/self/fd/3`) are directories the line cannot know. A path is rewritten to
// what it names before it is classified, so `rm -rf /proc/1/root/` is `rm -rf /`.

/** Stands for unknown text (paths.ts's UNKNOWN; repeated here so this module imports nothing). */
const UNKNOWN = '\u0000';
const PROCESS = /^(self|thread-self|\d+|[^/]*\u0000[^/]*)$/;

/** The path, absolute and not yet normalized, with each /proc or /dev/fd alias replaced by what it names. */
export function resolveProcAliases(path: string, dir: string): string {
  if (!/^\/+(proc|dev)\//.test(path) && !/\/(proc|dev)\//.test(path)) return path;
  const segs: string[] = [];
  for (const s of path.split('/')) {
    if (s === '' || s === '.') continue;
    if (s === '..' && segs.length > 0 && !segs[segs.length - 1]!.includes(UNKNOWN)) segs.pop();
    else segs.push(s);
    const [a, b, c, d] = segs;
    const n = segs.length;
    if (n === 3 && a === 'proc' && PROCESS.test(b!) && c === 'root') segs.length = 0;
    else if (n === 3 && a === 'proc' && PROCESS.test(b!) && c === 'cwd')
      segs.splice(0, 3, ...(b === 'self' || b === 'thread-self' ? dir.split('/').filter(Boolean) : [UNKNOWN]));
    else if ((n === 4 && a === 'proc' && PROCESS.test(b!) && c === 'fd' && /^\d+$/.test(d!)) || (n === 3 && a === 'dev' && b === 'fd' && /^\d+$/.test(c!)))
      segs.splice(0, n, UNKNOWN);
  }
  // `..` above a directory that cannot be known could be anywhere: the worst place, the root.
  const climbs = segs.findIndex((s, i) => s === '..' && i > 0 && segs[i - 1] === UNKNOWN);
  return climbs === -1 ? '/' + segs.join('/') : '/' + UNKNOWN;
}
