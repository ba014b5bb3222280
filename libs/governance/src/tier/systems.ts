// Verbs that destroy history, infrastructure and data: git push --force / reset --hard / clean -f (any
// abbreviation git accepts), infrastructure teardown (terraform destroy and state rm, kubectl delete
// namespace, scaling everything to zero or draining a node's data, helm uninstall, cloud and hosting
// CLIs' delete and terminate, docker system/volume prune, stopping every container), and destructive
// statements sent to a database or datastore client.
import { datastoreWipe, destructiveSql } from './sql.ts';
import { longOpt, type VerbHit } from './files.ts';

const hit = (rule: string, detail: string): VerbHit => ({ rule, detail });
const shortFlags = (a: string): string => (/^-[A-Za-z0-9]+$/.test(a) ? a.slice(1) : '');

/** git's global options and subcommand; `-c alias.x=…` definitions are returned for the caller. */
export function gitCommand(args: string[]): { sub: string | undefined; rest: string[]; aliases: Map<string, string> } {
  const aliases = new Map<string, string>();
  let i = 0;
  while (i < args.length && args[i]!.startsWith('-')) {
    const a = args[i]!;
    if (a === '-c' || a === '--config-env') {
      const m = /^alias\.([^=]+)=(.*)$/s.exec(args[i + 1] ?? '');
      if (m) aliases.set(m[1]!, m[2]!);
      i += 2;
    } else i += ['-C', '--git-dir', '--work-tree', '--namespace', '--exec-path', '--super-prefix', '--list-cmds'].includes(a) ? 2 : 1;
  }
  return { sub: args[i], rest: args.slice(i + 1), aliases };
}

/** Config keys whose value git runs as a shell command (pager, editor, ssh, diff and merge drivers, …). */
const COMMAND_CONFIG =
  /^(core\.(pager|editor|sshcommand|fsmonitor|askpass)|sequence\.editor|diff\.external|pager\..+|gpg(\..+)?\.program|credential(\..+)?\.helper|uploadpack\.packobjectshook|filter\..+\.(clean|smudge|process)|merge\..+\.driver|diff\..+\.(textconv|command)|(diff|merge)tool\..+\.cmd|remote\..+\.(uploadpack|receivepack|vcs))=(.*)$/is;

/** The shell commands that `git -c key=value …` makes git run: the values of command-running keys. */
export function gitConfigCommands(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length && args[i]!.startsWith('-'); i++) {
    if (args[i] !== '-c') continue;
    const m = COMMAND_CONFIG.exec(args[++i] ?? '');
    if (m) out.push(m[m.length - 1]!.replace(/^!/, ''));
  }
  return out;
}

export function gitHit(sub: string | undefined, rest: string[]): VerbHit | null {
  const opts = rest.filter((a) => a.startsWith('-'));
  if (sub === 'push') {
    const dry = opts.some((a) => longOpt(a, 'dry-run', 2) || shortFlags(a).includes('n'));
    const force = opts.some((a) => longOpt(a, 'force', 1) || longOpt(a, 'force-with-lease', 7) || longOpt(a, 'mirror', 2) || shortFlags(a).includes('f'));
    const plusRef = rest.filter((a) => !a.startsWith('-')).some((a) => a.startsWith('+'));
    if ((force || plusRef) && !dry) return hit('destructive.git_push_force', 'git push rewriting remote history');
  }
  if (sub === 'reset' && opts.some((a) => longOpt(a, 'hard', 1))) return hit('destructive.git_reset_hard', 'git reset --hard');
  if (sub === 'clean') {
    const force = opts.some((a) => longOpt(a, 'force', 1) || shortFlags(a).includes('f'));
    const dry = opts.some((a) => longOpt(a, 'dry-run', 1) || shortFlags(a).includes('n'));
    if (force && !dry) return hit('destructive.git_clean', 'git clean -f');
  }
  return null;
}

const K8S_WIDE = /^(namespaces?|ns|projects?|all|pv|pvc|persistentvolumes?|persistentvolumeclaims?|nodes?|no|crds?|customresourcedefinitions?)(\/|$|,)/;
const AWS_DELETE =
  /^(terminate-|schedule-key-deletion|delete-objects|delete-(bucket|stack|db-|table|cluster|repository|vpc|file-system|function|user|role|hosted-zone|secret|key|volume|snapshot|log-group|distribution|stream|domain|environment|application|service|queue|topic|load-balancer|auto-scaling-group|nat-gateway|subnet|instance|access-key|login-profile|policy|group|security-group|user-pool|identity-pool|rest-api|api|cache-cluster|replication-group|global-table|backup-vault|recovery-point|trail|detector|web-acl|certificate|index|collection|workgroup|project|pipeline|model|endpoint|graph|namespace|registry|image|launch-template|route-table|internet-gateway|transit-gateway|vpn|keyspace))/;

/** Infrastructure teardown by its CLI. */
export function infraHit(argv: string[], rawWords: string[]): VerbHit | null {
  const [program = '', ...args] = argv;
  const words = args.filter((a) => !a.startsWith('-'));
  const sub = words[0];
  if (/^(terraform|tofu|terragrunt|cdktf)$/.test(program)) {
    if (words.includes('destroy') || (sub === 'apply' && args.some((a) => /^--?destroy$/.test(a))))
      return hit('destructive.infra_teardown', `${program} destroy`);
    // What the state forgets is no longer managed; a deleted workspace's state is gone.
    if ((sub === 'state' && words[1] === 'rm') || (sub === 'workspace' && words[1] === 'delete'))
      return hit('destructive.infra_teardown', `${program} ${sub} ${words[1]}`);
  }
  if (
    (program === 'pulumi' && (sub === 'destroy' || sub === 'down' || (sub === 'stack' && /^(rm|remove)$/.test(words[1] ?? '')))) ||
    (program === 'eksctl' && sub === 'delete' && words[1] === 'cluster') ||
    (program === 'cdk' && sub === 'destroy') ||
    (/^(sls|serverless)$/.test(program) && sub === 'remove')
  ) {
    return hit('destructive.infra_teardown', `${program} ${sub}`);
  }
  if (/^(kubectl|oc|k)$/.test(program)) return kubernetesHit(program, args, words);
  if (program === 'helm' && ['uninstall', 'delete', 'del', 'un'].includes(sub ?? '')) return hit('destructive.infra_teardown', `helm ${sub}`);
  if (program === 'aws') {
    const recursive = args.some((a) => a === '--recursive');
    if ((sub === 's3' && ((words[1] === 'rm' && recursive) || words[1] === 'rb')) || words.slice(1, 2).some((w) => AWS_DELETE.test(w)))
      return hit('destructive.infra_teardown', `aws ${words.slice(0, 2).join(' ')}`);
  }
  if (program === 'gsutil' && (sub === 'rb' || (sub === 'rm' && args.some((a) => /^-[a-zA-Z]*[rRa]/.test(a)))))
    return hit('destructive.infra_teardown', `gsutil ${sub}`);
  // Any delete (`delete`, `delete-batch`, `purge`) and gcloud's recursive `storage rm`.
  if (/^(gcloud|az|doctl|linode-cli|hcloud|scw)$/.test(program) && words.some((w) => /^(delete(-.+)?|purge)$/.test(w)))
    return hit('destructive.infra_teardown', `${program} … delete`);
  if (program === 'gcloud' && sub === 'storage' && words[1] === 'rm' && args.some((a) => /^(-r|-R|--recursive)$/.test(a)))
    return hit('destructive.infra_teardown', 'gcloud storage rm -r');
  if (program === 'diskutil' && /^(erase|zero|secureerase|partitiondisk|reformat|apfs)/i.test(sub ?? '') && !/^apfs$/i.test(sub ?? ''))
    return hit('destructive.disk_tool', `diskutil ${sub}`);
  if (/^(docker|podman|nerdctl)$/.test(program)) return containerEngineHit(program, args, words, rawWords);
  if (/^(docker-compose|podman-compose)$/.test(program) && sub === 'down' && args.some((a) => a === '-v' || a === '--volumes'))
    return hit('destructive.infra_teardown', `${program} down -v`);
  if (/^(dropdb|dropuser)$/.test(program) || (program === 'mysqladmin' && words.includes('drop'))) return hit('destructive.sql_drop', program);
  return hostingHit(program, words, args);
}

/** kubectl's teardowns: deleting a namespace, every resource or the cluster's storage, scaling everything to zero, draining a node's data. */
function kubernetesHit(program: string, args: string[], words: string[]): VerbHit | null {
  const everywhere = args.some((a) => a === '--all' || a === '-A' || a === '--all-namespaces');
  if (words.includes('delete') && (everywhere || words.slice(words.indexOf('delete') + 1).some((w) => K8S_WIDE.test(w))))
    return hit('destructive.infra_teardown', `${program} delete ${words.slice(1).join(' ')}`.trim());
  const zero = args.some((a, i) => a === '--replicas=0' || (a === '--replicas' && args[i + 1] === '0'));
  if (words[0] === 'scale' && zero && everywhere) return hit('destructive.infra_teardown', `${program} scale --all --replicas=0`);
  // `kubectl get ns -o name | xargs kubectl delete`: a kind the line cannot name may be a namespace (`delete pod $(…)` names its kind).
  if (words.includes('delete') && (words[words.indexOf('delete') + 1] ?? '').includes('\u0000'))
    return hit('destructive.infra_teardown', `${program} delete of resources the command line cannot name`);
  // The cluster's own components, and nodes the line cannot name (`kubectl cordon $(kubectl get nodes -o name)`: every one).
  if (
    words.includes('delete') &&
    args.some((a, i) => /^(--namespace=|-n=?)kube-system$/.test(a) || (/^(-n|--namespace)$/.test(a) && args[i + 1] === 'kube-system'))
  )
    return hit('destructive.infra_teardown', `${program} delete in kube-system`);
  if (/^(cordon|drain|taint)$/.test(words[0] ?? '') && (args.includes('--all') || words.slice(1).some((w) => w.includes('\u0000'))))
    return hit('destructive.system_disruption', `${program} ${words[0]} of every node`);
  if (words[0] === 'drain' && args.some((a) => /^--delete-(emptydir|local)-data$/.test(a)))
    return hit('destructive.infra_teardown', `${program} drain deleting pods' data`);
  return null;
}

/** Hosting platforms' teardowns: an app, a site, a project, a database or its collections, a store's keys or secrets. */
function hostingHit(program: string, words: string[], args: string[] = []): VerbHit | null {
  const [sub = '', second = ''] = words;
  if ((program === 'heroku' && /destroy/.test(sub)) || (/^(fly|flyctl)$/.test(program) && words.includes('destroy')))
    return hit('destructive.infra_teardown', `${program} destroy`);
  if (
    (program === 'heroku' && sub === 'pg:reset') ||
    (program === 'turso' && /^(db|database)$/.test(sub) && /^(destroy|delete)$/.test(second)) ||
    (program === 'pscale' && /^(database|db)$/.test(sub) && second === 'delete') ||
    (program === 'neonctl' && /^(projects|databases|branches)$/.test(sub) && /^(delete|rm)$/.test(second)) ||
    (program === 'influx' && /^(bucket|org)$/.test(sub) && second === 'delete') ||
    (program === 'vault' && ((sub === 'secrets' && second === 'disable') || (sub === 'kv' && second === 'metadata' && words[2] === 'delete')))
  )
    return hit('destructive.datastore_wipe', `${program} ${words.slice(0, 2).join(' ')}`);
  // Every key: `etcdctl del "" --prefix`, `consul kv delete -recurse` with no prefix.
  if (program === 'etcdctl' && /^(del|delete)$/.test(sub) && args.some((a) => a === '--prefix' || a === '--from-key') && /^\/?$/.test(second))
    return hit('destructive.datastore_wipe', 'etcdctl del of every key');
  if (program === 'consul' && sub === 'kv' && second === 'delete' && args.some((a) => /^-?-recurse$/.test(a)) && /^\/?$/.test(words[2] ?? ''))
    return hit('destructive.datastore_wipe', 'consul kv delete -recurse of every key');
  if (
    (program === 'firebase' && /^(firestore:delete|database:remove|projects:delete|hosting:disable|functions:delete|auth:delete)$/.test(sub)) ||
    (/^(vercel|vc)$/.test(program) && (/^(remove|rm)$/.test(sub) || (sub === 'project' && /^(rm|remove)$/.test(second)))) ||
    (/^(netlify|ntl)$/.test(program) && sub === 'sites:delete') ||
    (program === 'supabase' && sub === 'projects' && second === 'delete')
  )
    return hit('destructive.infra_teardown', `${program} ${words.slice(0, 2).join(' ')}`);
  return null;
}

/** A container engine's teardowns: pruning or resetting its storage, volumes, every container or image removed or stopped, compose down -v. */
function containerEngineHit(program: string, args: string[], words: string[], rawWords: string[]): VerbHit | null {
  const [sub = '', second = ''] = words;
  if (['system', 'volume'].includes(sub) && second === 'prune') return hit('destructive.infra_teardown', `${program} ${sub} prune`);
  if (sub === 'system' && second === 'reset') return hit('destructive.infra_teardown', `${program} system reset`);
  if (sub === 'volume' && second === 'rm') return hit('destructive.infra_teardown', `${program} volume rm`);
  const every = rawWords.some(
    (w) => w === '\u0005every-container' || (/\$\(\s*(docker|podman)\s+(ps|images|container ls)\b[^)]*-[a-zA-Z]*[aq]/.test(w) && !/--filter|\s-f\s/.test(w)),
  );
  // Podman's own `rm --all` / `rm -af`.
  const all = args.some((a) => a === '--all' || /^-[a-zA-Z]*a[a-zA-Z]*$/.test(a));
  if ((every || (program === 'podman' && all)) && (/^(rm|rmi|stop|kill)$/.test(sub) || (sub === 'container' && /^(rm|stop|kill)$/.test(second))))
    return hit('destructive.infra_teardown', `${program} ${sub} of every container or image`);
  if (sub === 'compose' && second === 'down' && args.some((a) => a === '-v' || a === '--volumes'))
    return hit('destructive.infra_teardown', `${program} compose down -v`);
  return null;
}

export const SQL_CLIENTS = new Set([
  'psql',
  'mysql',
  'mariadb',
  'sqlite3',
  'sqlite',
  'sqlcmd',
  'clickhouse',
  'clickhouse-client',
  'duckdb',
  'cockroach',
  'pgcli',
  'mycli',
  'litecli',
  'usql',
  'sqlplus',
  'snowsql',
  'trino',
  'presto',
  'spark-sql',
  'bq',
  'isql',
  'cqlsh',
  'mongo',
  'mongosh',
  'redis-cli',
  'valkey-cli',
  'keydb-cli',
  'influx',
  'surreal',
  'turso',
  'wrangler',
  'supabase',
  'prisma',
]);

/** A destructive statement in the text a database client is given (arguments, heredoc, stdin). */
export function clientTextHit(program: string, texts: string[]): VerbHit | null {
  for (const t of texts) {
    const sql = /^(redis-cli|valkey-cli|keydb-cli|mongo|mongosh)$/.test(program) ? null : destructiveSql(t);
    if (sql) return hit('destructive.sql_drop', `${program}: ${sql}`);
    const wipe = datastoreWipe(t);
    if (wipe) return hit('destructive.datastore_wipe', `${program}: ${wipe}`);
  }
  return null;
}
