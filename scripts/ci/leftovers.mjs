#!/usr/bin/env node
// What a test run left behind, for .ci/run: `leftovers.mjs snapshot <file>` before the tests records
// what is there already; `leftovers.mjs check <file>` after them lists everything of ours that is new
// — directories in the OS temp directory named intutic-*, containers, volumes and networks in the
// engine, and processes of ours still running — and exits 1 when there is any. Images stay: they are
// the engine's cache, built once and reused.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';

const [mode, file] = process.argv.slice(2);
if (!['snapshot', 'check'].includes(mode) || !file) {
  process.stderr.write('usage: leftovers.mjs snapshot|check <state file>\n');
  process.exit(64);
}

/** Ours: what the tests and the product name intutic-* (temp dirs, containers) or run as intutic. */
const OURS = /^intutic/;
const OUR_PROCESS = /intutic|mcp-server-filesystem|redis-server .*--dir \/tmp\/intutic|claude|codex/;

function docker(args) {
  try {
    return execFileSync('docker', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 60_000 })
      .split('\n')
      .filter(Boolean);
  } catch {
    return [];
  }
}

/** pid → command line, of every process but this one and its parents (the CI script, npm). */
function processes() {
  const mine = new Set([String(process.pid), String(process.ppid)]);
  const out = {};
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name) && !mine.has(name))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
      const state = /^\d+ \(.*\) (\S)/.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1];
      if (cmdline && state !== 'Z') out[pid] = cmdline;
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

function take() {
  return {
    temp: readdirSync(tmpdir()).filter((name) => OURS.test(name)),
    containers: docker(['ps', '-aq', '--no-trunc']),
    volumes: docker(['volume', 'ls', '-q']),
    // By name: a restarted engine gives its default networks (bridge, host, none) new ids.
    networks: docker(['network', 'ls', '--format', '{{.Name}}']).filter((name) => !['bridge', 'host', 'none'].includes(name)),
    processes: processes(),
  };
}

if (mode === 'snapshot') {
  writeFileSync(file, JSON.stringify(take()));
  process.exit(0);
}

const before = JSON.parse(readFileSync(file, 'utf8'));
const now = take();
const added = (key) => now[key].filter((entry) => !before[key].includes(entry));
const describeContainer = (id) => docker(['inspect', '--format', '{{.Name}} ({{.Config.Image}}, {{.State.Status}})', id])[0] ?? id;
const found = [
  ...added('temp').map((name) => `temp directory ${tmpdir()}/${name}`),
  ...added('containers').map((id) => `container ${describeContainer(id)}`),
  ...added('volumes').map((name) => `volume ${name}`),
  ...added('networks').map((name) => `network ${name}`),
  ...Object.entries(now.processes)
    .filter(([pid, cmdline]) => before.processes[pid] !== cmdline && OUR_PROCESS.test(cmdline))
    .map(([pid, cmdline]) => `process ${pid}: ${cmdline.slice(0, 200)}`),
];
if (found.length === 0) {
  process.stdout.write('nothing of ours was left behind (temp directory, engine, processes)\n');
  process.exit(0);
}
process.stdout.write(`the tests left ${found.length} thing(s) of ours behind:\n${found.map((line) => `  ${line}`).join('\n')}\n`);
process.exit(1);
