// macOS taken down or laid open rather than a file: an APFS container deleted, Time Machine's backups
// deleted or switched off, System Integrity Protection or Gatekeeper switched off, a system daemon
// unloaded, an account deleted (`dscl . -delete /Users/x`, `sysadminctl -deleteUser`), the firmware's
// variables cleared, the machine shut down through System Events, and a protected place made
// immutable (`chflags -R uchg ~`).
import type { VerbHit } from './files.ts';

const disruption = (detail: string): VerbHit => ({ rule: 'destructive.system_disruption', detail });

/** A macOS command that takes the machine down or switches a protection off; null otherwise. */
export function macosHit(argv: readonly string[]): VerbHit | null {
  const [program = '', ...args] = argv;
  const words = args.filter((a) => !a.startsWith('-'));
  const [sub = '', second = ''] = words;
  if (program === 'diskutil' && /^apfs$/i.test(sub) && /^(delete|erase)/i.test(second))
    return { rule: 'destructive.disk_tool', detail: `diskutil apfs ${second}` };
  if (program === 'tmutil' && /^(delete|deletelocalsnapshots|disable|removedestination)$/i.test(sub))
    return disruption(`tmutil ${sub}: Time Machine's backups`);
  if (program === 'csrutil' && /^(disable|clear)$/.test(sub)) return disruption(`csrutil ${sub}: System Integrity Protection off`);
  if (program === 'spctl' && args.some((a) => /^--(master|global)-disable$/.test(a))) return disruption('spctl: Gatekeeper off');
  if (
    program === 'launchctl' &&
    /^(unload|bootout|disable|remove)$/.test(sub) &&
    words.slice(1).some((w) => /^(system\/?$|gui\/\d+\/?$|user\/\d+\/?$|system\/|\/System\/Library\/|\/Library\/LaunchDaemons\/|com\.apple\.)/.test(w))
  )
    return disruption(`launchctl ${sub} of a system daemon or a whole session`);
  // A whole domain of the user's or the system's preferences (no key: every setting in it).
  if (program === 'defaults' && sub === 'delete' && words.length === 2)
    return { rule: 'destructive.protected_file', detail: `defaults delete ${second}: every setting of the domain` };
  if (program === 'dscl' && args.some((a) => /^-(delete|remove)$/.test(a)) && args.some((a) => /^\/(Users|Groups)\/[^/]+$/.test(a)))
    return disruption('dscl: deleting an account');
  if (program === 'sysadminctl' && args.includes('-deleteUser')) return disruption('sysadminctl -deleteUser');
  if (program === 'nvram' && args.some((a) => a === '-c' || a === '-d')) return disruption('nvram: firmware variables cleared');
  if (program === 'osascript' && args.some((a) => /system events/i.test(a) && /\b(shut down|restart|log out)\b/i.test(a)))
    return disruption('osascript: the machine shut down');
  return null;
}
