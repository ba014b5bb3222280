// Windows taken down rather than a folder: shadow copies and the boot configuration deleted, a
// registry hive deleted, the machine stopped or restarted, every process killed, an account deleted
// or disabled, every package removed, the network adapters or the firewall switched off, the machine
// PATH emptied; and files written over by PowerShell or .NET: the PowerShell profile (a start-up
// script), a system file, a dotfile of the profile (`Set-Content $PROFILE`, `Clear-Content
// …\drivers\etc\hosts`, `[IO.File]::WriteAllText("$HOME\.bashrc", '')`).

export interface SystemHit {
  rule: 'destructive.system_disruption' | 'destructive.protected_file' | 'destructive.rm_recursive';
  detail: string;
}

const disruption = (detail: string): SystemHit => ({ rule: 'destructive.system_disruption', detail });

/** A registry path at (or just under) a hive's root: `HKLM\SOFTWARE`, `HKLM:\SOFTWARE\Microsoft`, `HKCU\Environment`. */
const HIVE = /^(hklm|hkcu|hkcr|hku|hkcc|hkey_[a-z_]+):?\\?([^\\]+(\\[^\\]+)?)?\\?$/i;
/** Files whose overwrite breaks the machine or runs code at start-up. */
const PROTECTED =
  /^(\$profile(\.\w+)?|([a-z]:)?\\windows\\.*|\$env:(systemroot|windir)\\.*|%(systemroot|windir)%\\.*|(~|\$home|\$env:userprofile|%userprofile%)[\\/]\.[^\\/]+.*)$/i;

const lower = (w: string | undefined): string => (w ?? '').toLowerCase();
const valueOf = (words: string[], ...names: string[]): string | undefined => {
  const at = words.findIndex((w) => names.includes(lower(w)));
  return at === -1 ? undefined : words[at + 1];
};

/** A statement stage (`words`, the stage before it) that takes the machine down or writes over a protected file. */
export function windowsSystemHit(words: string[], before: string[] | null): SystemHit | null {
  const program = lower(words[0]).replace(/\.exe$/, '');
  const args = words.slice(1).map(lower);
  if (program === 'vssadmin' && args[0] === 'delete' && args[1] === 'shadows') return disruption('vssadmin delete shadows: every restore point');
  if (program === 'wmic' && args.includes('shadowcopy') && args.includes('delete')) return disruption('wmic shadowcopy delete');
  if (program === 'bcdedit' && args.some((a) => /^\/(delete|deletevalue)$/.test(a))) return disruption('bcdedit deleting the boot configuration');
  if (program === 'reg' && args[0] === 'delete' && HIVE.test(args[1] ?? '')) return disruption(`reg delete ${words[2]}`);
  if (/^(remove-item|ri|rm|del)$/.test(program) && words.slice(1).some((w) => HIVE.test(w.replace(/^-path$/i, ''))) && args.some((a) => a.startsWith('-r')))
    return disruption('Remove-Item of a registry hive');
  if (/^(stop-computer|restart-computer)$/.test(program)) return disruption(words[0]!);
  if (program === 'wbadmin' && args[0] === 'delete') return disruption(`wbadmin delete ${args[1] ?? ''}: the machine's backups`.trim());
  if (program === 'set-mppreference' && args.some((a) => /^-disable\w+$/.test(a)) && !args.includes('$false'))
    return disruption('Set-MpPreference: Defender protection off');
  if (program === 'sdelete' && args.some((a) => /^[a-z]:\\?$/.test(a) || a === '-c' || a === '-z')) return disruption('sdelete of a whole drive');
  if (program === 'taskkill' && args.includes('/im') && valueOf(args, '/im') === '*') return disruption('taskkill of every process');
  if (
    program === 'stop-process' &&
    (valueOf(args, '-name', '-processname') === '*' || (before !== null && /^(get-process|gps|ps)$/i.test(before[0] ?? '') && before.length === 1))
  )
    return disruption('Stop-Process of every process');
  if (program === 'net' && args[0] === 'user' && args.includes('/delete')) return disruption(`net user ${words[2]} /delete`);
  if (/^(remove-localuser|disable-localuser)$/.test(program)) return disruption(`${words[0]}: an account`);
  if (program === 'remove-appxpackage' && args.includes('-allusers')) return disruption('Remove-AppxPackage -AllUsers');
  if ((program === 'winget' && args[0] === 'uninstall' && args.includes('--all')) || (program === 'choco' && args[0] === 'uninstall' && args[1] === 'all'))
    return disruption(`${words[0]} uninstall of every package`);
  if (program === 'uninstall-package' && (valueOf(args, '-name') === '*' || (before !== null && lower(before[0]) === 'get-package' && before.length === 1)))
    return disruption('Uninstall-Package of every package');
  if (program === 'disable-netadapter') return disruption('Disable-NetAdapter');
  if (
    program === 'netsh' &&
    ((args[0] === 'advfirewall' && (args[1] === 'reset' || args.includes('off'))) || (args[0] === 'interface' && args.includes('disable')))
  )
    return disruption(`netsh ${args.slice(0, 2).join(' ')}`);
  if (program === 'set-netfirewallprofile' && /^(false|\$false|0)$/.test(valueOf(args, '-enabled') ?? ''))
    return disruption('Set-NetFirewallProfile -Enabled False');
  const written = /^(set-content|sc|clear-content|clc|out-file|new-item|ni|add-content|ac)$/.test(program)
    ? (valueOf(words.map(lower), '-path', '-filepath', '-literalpath') ?? words.slice(1).find((w) => !w.startsWith('-')))
    : undefined;
  const writes = program !== 'new-item' && program !== 'ni' ? true : args.includes('-force');
  if (written !== undefined && writes && PROTECTED.test(written)) return { rule: 'destructive.protected_file', detail: `${words[0]} ${written}` };
  return null;
}

const DOTNET_DELETE = /\[(?:system\.)?io\.directory\]::delete\(\s*['"]([^'"]+)['"]\s*,\s*\$true/i;
const DOTNET_WRITE = /\[(?:system\.)?io\.file\]::(?:writealltext|writeallbytes|writealllines|appendalltext|delete)\(\s*['"]([^'"]+)['"]/i;
const MACHINE_PATH = /\[(?:system\.)?environment\]::setenvironmentvariable\(\s*['"]path['"]\s*,\s*(''|""|\$null)\s*,\s*['"]?machine/i;

/** .NET calls in a PowerShell text: a directory deleted recursively, a protected file written, the machine PATH emptied. */
export function dotnetHits(text: string, place: (target: string) => string | null): SystemHit[] {
  const hits: SystemHit[] = [];
  const deleted = DOTNET_DELETE.exec(text)?.[1];
  if (deleted !== undefined && place(deleted) !== null)
    hits.push({ rule: 'destructive.rm_recursive', detail: `[IO.Directory]::Delete of ${place(deleted)} (${deleted})` });
  const written = DOTNET_WRITE.exec(text)?.[1];
  if (written !== undefined && PROTECTED.test(written)) hits.push({ rule: 'destructive.protected_file', detail: `[IO.File] writing ${written}` });
  if (MACHINE_PATH.test(text)) hits.push(disruption('the machine PATH emptied'));
  return hits;
}
