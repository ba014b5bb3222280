// `ps` listing every process (`ps -e`, `ps -A`, `ps aux`, `ps -eo pid=`) prints every pid there is,
// process 1 among them: killing what it prints takes the machine (or the container) down. Its output
// stands for pid 1 where a line feeds it to kill (`ps -e -o pid= | xargs kill -9`, `kill $(ps -eo pid=)`).

/** Whether `ps` with these options lists every process: -e/-A or BSD `ax`, with nothing that narrows it (a user, pid, name, group, session, terminal). */
export function listsEveryProcess(args: readonly string[]): boolean {
  let every = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a.startsWith('--')) {
      if (/^--(user|User|pid|ppid|sid|tty|group|Group|quick-pid)\b/.test(a)) return false;
      if (/^--(format|sort|cols|columns|rows|width|lines)$/.test(a)) i++;
      continue;
    }
    const unix = a.startsWith('-');
    const word = unix ? a.slice(1) : a;
    // Letters up to a format or sort option (`-eo pid=`, `axo pid`), whose value is the rest or the next word.
    const letters = /^[a-zA-Z]*$/.test(word) ? word.replace(/[oOk].*$/, '') : '';
    if (/^[a-zA-Z]*[oOk]$/.test(word)) i++;
    if (unix ? /[upCgGstq]/.test(letters) : /[pUt]/.test(letters)) return false;
    every ||= unix ? /[eA]/.test(letters) : /a/.test(letters) && /x/.test(letters);
  }
  return every;
}

/** What a listing of every process's pids stands for: the one of them every other process rests on. */
export const EVERY_PID = '1';
