// What a container's command does to the host through its bind mounts: `docker run -v /:/host alpine
// rm -rf /host/etc` removes the host's /etc. A `run`'s command words (a script word's paths too) that
// lie under a read-write bind mount's target are read as the host paths mounted there, so the tier
// judges them as it judges the host's own, and a working directory (`-w /host/etc`) under one is
// where the command's relative paths lie. Named volumes and read-only mounts are left as they are.

interface Bind {
  source: string;
  target: string;
}

function volumeBind(spec: string): Bind | null {
  const [source = '', target = '', options = ''] = spec.split(':');
  if (!source.startsWith('/') || !target.startsWith('/') || options.split(',').includes('ro')) return null;
  return { source, target };
}

function mountBind(spec: string): Bind | null {
  const fields = new Map(spec.split(',').map((f) => (f.includes('=') ? [f.slice(0, f.indexOf('=')), f.slice(f.indexOf('=') + 1)] : [f, 'true'])));
  const source = fields.get('source') ?? fields.get('src') ?? '';
  const target = fields.get('target') ?? fields.get('destination') ?? fields.get('dst') ?? '';
  const readOnly = ['readonly', 'ro'].some((k) => fields.has(k) && fields.get(k) !== 'false');
  if (fields.get('type') !== 'bind' || !source.startsWith('/') || !target.startsWith('/') || readOnly) return null;
  return { source, target };
}

/** `-v`, after any of run's flags that take no value (`-d`, `-i`, `-t`, `-P`), and its value when attached. */
const BUNDLED_VOLUME = /^-[ditP]*v(.*)$/;

/** The read-write bind mounts among a `run`'s options: `-v`/`--volume SRC:DST[:opts]`, `--mount type=bind,…`. */
export function bindMounts(options: readonly string[]): Bind[] {
  const binds: (Bind | null)[] = [];
  for (let i = 0; i < options.length; i++) {
    const a = options[i]!;
    if (a === '-v' || a === '--volume') binds.push(volumeBind(options[++i] ?? ''));
    else if (a.startsWith('--volume=')) binds.push(volumeBind(a.slice('--volume='.length)));
    else if (BUNDLED_VOLUME.test(a)) {
      // `-itv SRC:DST`, `-itv/:/host`: run's flags bundled before the -v that ends them.
      const attached = BUNDLED_VOLUME.exec(a)![1]!;
      binds.push(volumeBind(attached !== '' ? attached : (options[++i] ?? '')));
    } else if (a === '--mount') binds.push(mountBind(options[++i] ?? ''));
    else if (a.startsWith('--mount=')) binds.push(mountBind(a.slice('--mount='.length)));
  }
  return binds.filter((b): b is Bind => b !== null);
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The command's words with every path under a bind's target (in a script word too) as the host's. */
export function asHostPaths(command: string[], binds: Bind[]): string[] {
  if (binds.length === 0) return command;
  const targets = new Map(binds.map((b) => [b.target.replace(/(.)\/+$/, '$1'), b.source.replace(/(.)\/+$/, '$1')]));
  // Longest first, so /host/etc is read before /host.
  const names = [...targets.keys()].sort((a, b) => b.length - a.length).map(escape);
  const path = new RegExp(`(^|[\\s'"=:;(])(${names.join('|')})(?=(/|$|[\\s'";)*]))`, 'g');
  return command.map((word) =>
    word.replace(path, (_m, before: string, target: string, next: string) => {
      const source = targets.get(target)!;
      return before + (source === '/' && next === '/' ? '' : source);
    }),
  );
}

/** The working directory `-w`/`--workdir` gives the container, or undefined. */
function workdirOf(options: readonly string[]): string | undefined {
  let workdir: string | undefined;
  for (let i = 0; i < options.length; i++) {
    const a = options[i]!;
    if (a === '-w' || a === '--workdir') workdir = options[++i];
    else if (a.startsWith('--workdir=')) workdir = a.slice('--workdir='.length);
    else if (/^-[ditP]*w./.test(a)) workdir = a.slice(a.indexOf('w') + 1);
    else if (/^-[ditP]*w$/.test(a)) workdir = options[++i];
  }
  return workdir;
}

const quote = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;

/**
 * A `run`'s command as it acts on the host: its paths under read-write bind mounts as the host's, and
 * run in the host directory a mounted working directory is (`sh -c 'cd /etc && rm -rf ssh'`).
 */
export function hostCommand(command: string[], options: readonly string[]): string[] {
  const binds = bindMounts(options);
  const host = asHostPaths(command, binds);
  const workdir = workdirOf(options);
  const hostDir = workdir === undefined ? undefined : asHostPaths([workdir], binds)[0]!;
  if (hostDir === undefined || hostDir === workdir || host.length === 0) return host;
  return ['sh', '-c', `cd ${quote(hostDir)} && ${host.map(quote).join(' ')}`];
}
