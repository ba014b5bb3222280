// Taking the machine's firewall or network down, in any of its tools' spellings: flushing or deleting
// the packet filter's rules or chains (`iptables -F`, `nft flush ruleset`), a policy that drops
// everything (`iptables -P INPUT DROP`), switching the firewall off (`ufw disable`, `ufw reset`,
// `systemctl stop firewalld`, `firewall-cmd --panic-on`), and cutting the machine off (`ip link set
// eth0 down` with ip's abbreviations, `ip route flush`, `ip route del default`, `ifconfig eth0 down`,
// `route del default`, `ifdown`, `nmcli networking off`). Listing, adding rules and bringing links up stay allowed.
import { longOpt, type VerbHit } from './files.ts';

const disruption = (detail: string): VerbHit => ({ rule: 'destructive.system_disruption', detail });

const PACKET_FILTERS = /^(iptables|ip6tables|iptables-legacy|ip6tables-legacy|iptables-nft|ip6tables-nft|ebtables|arptables)$/;
const FIREWALL_SERVICES =
  /^(firewalld|ufw|nftables|iptables|ip6tables|netfilter-persistent|NetworkManager|networking|network|systemd-networkd|wicked)(\.service)?$/;

/** iptables's teardown: -F/--flush, -X/--delete-chain (alone or in a cluster: `-vF`), -P CHAIN DROP|REJECT. */
function packetFilterHit(program: string, args: readonly string[]): VerbHit | null {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const short = /^-[a-zA-Z]+$/.test(a) ? a.slice(1) : '';
    if (/[FX]/.test(short) || longOpt(a, 'flush', 3) || longOpt(a, 'delete-chain', 8)) return disruption(`${program} ${a}: the firewall's rules removed`);
    if ((short.endsWith('P') || longOpt(a, 'policy', 3)) && /^(DROP|REJECT)$/i.test(args[i + 2] ?? ''))
      return disruption(`${program} ${a} ${args[i + 1]} ${args[i + 2]}: every packet dropped`);
  }
  return null;
}

/** nft's teardown: `flush ruleset|table|chain …`, `delete|destroy table|chain …`, in separate words or one. */
function nftHit(args: readonly string[]): VerbHit | null {
  const words = args
    .filter((a) => !a.startsWith('-'))
    .join(' ')
    .split(/[\s;]+/);
  const at = words.findIndex((w, i) => /^(flush|delete|destroy)$/.test(w) && /^(ruleset|table|chain)$/.test(words[i + 1] ?? ''));
  return at === -1 ? null : disruption(`nft ${words[at]} ${words[at + 1]}`);
}

/** The word of `choices` that `word` abbreviates, the first in ip's own order, or undefined. */
const abbreviates = (word: string | undefined, choices: readonly string[]): string | undefined =>
  word === undefined || word === '' ? undefined : choices.find((c) => c.startsWith(word));

/** ip's objects and their commands, in ip's own order: an abbreviation means the first that it starts. */
const IP_OBJECTS = ['address', 'addrlabel', 'maddress', 'route', 'rule', 'neighbor', 'ntable', 'link'];
const IP_COMMANDS: Record<string, string[]> = {
  link: ['add', 'set', 'change', 'replace', 'delete', 'show', 'list'],
  address: ['add', 'change', 'replace', 'delete', 'list', 'show', 'flush'],
  route: ['add', 'change', 'replace', 'delete', 'list', 'show', 'flush'],
};

/** ip's teardown: a link set down or deleted, addresses or routes flushed, the default route deleted. */
function ipHit(args: readonly string[]): VerbHit | null {
  const words = args.filter((a, i) => !a.startsWith('-') && !/^-(n|netns|b|batch|rc|rcvbuf)$/.test(args[i - 1] ?? ''));
  const object = abbreviates(words[0], IP_OBJECTS) ?? '';
  const command = abbreviates(words[1], IP_COMMANDS[object] ?? []);
  const operands = words.slice(2);
  if (object === 'link' && command === 'set' && operands.includes('down')) return disruption(`ip link set ${operands.find((w) => w !== 'dev') ?? ''} down`);
  if ((object === 'link' && command === 'delete') || (object !== 'link' && command === 'flush')) return disruption(`ip ${object} ${command}`);
  if (object === 'route' && command === 'delete' && operands.some((w) => /^(default|0\.0\.0\.0\/0|::\/0)$/.test(w)))
    return disruption('ip route delete default');
  return null;
}

/** The units `systemctl stop|disable|mask|kill UNIT…` or `service UNIT stop` stops, and the verb; null for any other command. */
export function stoppedUnits(argv: readonly string[]): { verb: string; units: string[] } | null {
  const [program = '', ...args] = argv;
  const words = args.filter((a) => !a.startsWith('-'));
  if (program === 'systemctl' && /^(stop|disable|mask|kill)$/.test(words[0] ?? '')) return { verb: words[0]!, units: words.slice(1) };
  if (program === 'service' && words[1] === 'stop') return { verb: 'stop', units: [words[0]!] };
  return null;
}

/** A command that takes the machine's firewall or network down; null otherwise. */
export function networkHit(argv: readonly string[]): VerbHit | null {
  const [program = '', ...args] = argv;
  const words = args.filter((a) => !a.startsWith('-'));
  if (args.some((a) => a === '--help' || a === '--version')) return null;
  if (PACKET_FILTERS.test(program)) return packetFilterHit(program, args);
  if (program === 'nft') return nftHit(args);
  if (program === 'ip') return ipHit(args);
  if (program === 'ufw' && (words[0] === 'disable' || words[0] === 'reset')) return disruption(`ufw ${words[0]}`);
  // The kernel's own guards taken off: SELinux no longer enforcing, every AppArmor profile unloaded.
  if (program === 'setenforce' && /^(0|permissive)$/i.test(words[0] ?? '')) return disruption(`setenforce ${words[0]}: SELinux stops enforcing`);
  if (program === 'aa-teardown') return disruption('aa-teardown: every AppArmor profile unloaded');
  // `ufw default deny incoming` and `ufw default allow outgoing` are every guide's first two lines.
  const direction = words[2] ?? 'incoming';
  if (
    program === 'ufw' &&
    words[0] === 'default' &&
    ((words[1] === 'allow' && direction === 'incoming') || (/^(deny|reject)$/.test(words[1] ?? '') && direction === 'outgoing'))
  )
    return disruption(`ufw default ${words[1]} ${direction}`);
  if (program === 'firewall-cmd' && args.some((a) => a === '--panic-on')) return disruption('firewall-cmd --panic-on');
  if (program === 'ifconfig' && words.includes('down')) return disruption(`ifconfig ${words[0] ?? ''} down`);
  if (program === 'route' && /^del/.test(words[0] ?? '') && words.some((w) => /^(default|0\.0\.0\.0(\/0)?)$/.test(w))) return disruption('route del default');
  if (program === 'ifdown' && args.length > 0) return disruption(`ifdown ${args.join(' ')}`);
  if (program === 'nmcli') {
    const [object, verb, state] = words;
    const o = abbreviates(object, ['general', 'networking', 'radio', 'connection', 'device', 'agent', 'monitor']);
    if ((o === 'networking' && verb === 'off') || (o === 'radio' && state === 'off' && verb !== undefined)) return disruption(`nmcli ${o} off`);
    if (
      (o === 'connection' && abbreviates(verb, ['down', 'delete']) !== undefined) ||
      (o === 'device' && abbreviates(verb, ['disconnect', 'delete']) !== undefined)
    )
      return disruption(`nmcli ${o} ${verb}`);
  }
  const stopped = stoppedUnits(argv);
  if (stopped?.units.some((s) => FIREWALL_SERVICES.test(s))) return disruption(`${program} stopping ${stopped.units.join(' ')}`);
  return null;
}
