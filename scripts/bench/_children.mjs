// Child processes for a benchmark that measures processes side by side: started with their stdout's
// first line awaited, optionally pinned to CPUs (Linux's taskset), their CPU time read from /proc,
// and every one stopped when the benchmark exits.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const children = [];
process.on('exit', stopAll);

/** The CPUs this process may run on (Linux's `taskset`), or null where that cannot be read. */
function allowedCpus() {
  if (process.platform !== 'linux') return null;
  try {
    const list = execFileSync('taskset', ['-cp', String(process.pid)], { encoding: 'utf8' })
      .split(':')
      .pop()
      .trim();
    return list.split(',').flatMap((part) => {
      const [from, to = from] = part.split('-').map(Number);
      return Array.from({ length: to - from + 1 }, (_, i) => from + i);
    });
  } catch {
    return null;
  }
}

/** An upstream on one CPU, everything else on the rest; null (with the reason) where it cannot be, or is not wanted. */
export function cpuPlacement(noPin) {
  if (noPin) return { pin: null, note: 'not pinned (--no-pin)' };
  const allowed = allowedCpus();
  if (allowed === null) return { pin: null, note: 'not pinned: needs Linux and taskset' };
  if (allowed.length < 2) return { pin: null, note: `not pinned: one CPU (${allowed.join(',')}) to run on` };
  const [upstream, ...rest] = allowed;
  return {
    pin: { upstream: String(upstream), rest: rest.join(',') },
    note: `upstream pinned to CPU ${upstream}; client, proxy and relay on CPU ${rest.join(',')}`,
  };
}

/** Start a Node child process in `cwd` (on `cpuList` when given) and resolve with the URL its first stdout line announces. */
export function startChild(cwd, args, pattern, cpuList) {
  return new Promise((resolve, reject) => {
    const [command, argv] = cpuList ? ['taskset', ['-c', cpuList, process.execPath, ...args]] : [process.execPath, args];
    const child = spawn(command, argv, { cwd, stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(child);
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
    createInterface({ input: child.stdout }).once('line', (line) => {
      const match = pattern.exec(line);
      if (match) resolve({ url: match[1], child });
      else reject(new Error(`unexpected first line: ${line}`));
    });
  });
}

/** CPU seconds (user + system) a child has used so far; null where /proc is not there. */
export function cpuSeconds(child) {
  try {
    const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in USER_HZ ticks
  } catch {
    return null;
  }
}

/** Stop every child still running (also done when the process exits). */
export function stopAll() {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
}
