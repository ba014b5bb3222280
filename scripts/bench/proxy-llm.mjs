#!/usr/bin/env node
// Benchmark: what the governance proxy adds to a model call. In one run, against the same local
// scripted upstream (its own process), calls go direct and through the proxy (the built `intutic
// start`, its own process, writing its events file as in a real run), interleaved so that machine
// noise falls on both alike. Prints added latency per call (p50, p99; target p50 < 1 ms) and the
// streaming throughput ratio proxied/direct (target >= 0.9). Beside them, the same streams through a
// raw TCP relay (scripts/bench/tcp-relay.mjs): what one more process in the path costs on this
// machine at the least, whatever it does.
//   node scripts/bench/proxy-llm.mjs [--calls 2000] [--streams 12] [--stream-mb 4]
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { emitRow } from './_rows.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values } = parseArgs({
  options: { calls: { type: 'string', default: '2000' }, streams: { type: 'string', default: '12' }, 'stream-mb': { type: 'string', default: '4' } },
});
const CALLS = Number(values.calls);
const STREAMS = Number(values.streams);
const STREAM_BYTES = Number(values['stream-mb']) * 1024 * 1024;

const work = mkdtempSync(join(tmpdir(), 'intutic-bench-proxy-'));
const children = [];

/** Start a child process and resolve with the URL its first stdout line announces. */
function startChild(args, pattern) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(child);
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
    createInterface({ input: child.stdout }).once('line', (line) => {
      const match = pattern.exec(line);
      if (match) resolve(match[1]);
      else reject(new Error(`unexpected first line: ${line}`));
    });
  });
}

/** CPU seconds (user + system) a child has used so far; null where /proc is not there. */
function cpuSeconds(child) {
  try {
    const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in USER_HZ ticks
  } catch {
    return null;
  }
}

function stopAll() {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
}
process.on('exit', stopAll);

// Turn 0 (a fresh conversation) answers a short text: the latency case. Turn 1 (after one tool
// round) streams STREAM_BYTES of text in 4 KiB deltas: the throughput case.
const script = {
  side_requests: 'never',
  after_last: 'repeat_last',
  chunk_chars: 4096,
  turns: [{ text: 'ok' }, { text: 'x'.repeat(STREAM_BYTES) }],
};
const scriptFile = join(work, 'script.json');
writeFileSync(scriptFile, JSON.stringify(script));

// Measure the code as it is now: rebuild the CLI bundle the proxy runs from.
execFileSync(process.execPath, [join(root, 'scripts/build.mjs')], { stdio: 'inherit' });
const upstream = await startChild(['--import', 'tsx', 'libs/testkit/src/model/main.ts', '--script', scriptFile], /listening on (\S+)/);
const proxy = await startChild(
  ['apps/cli/bin/intutic.mjs', 'start', '--upstream-anthropic', upstream, '--upstream-openai', upstream, '--events', join(work, 'events.jsonl'), '--log', join(work, 'proxy.log')],
  /listening on (\S+)/,
);

const tcpRelay = await startChild(['scripts/bench/tcp-relay.mjs', upstream], /listening on (\S+)/);

const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const small = JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'ping' }] });
const large = JSON.stringify({
  model: 'claude-sonnet-4-5',
  max_tokens: 16,
  stream: true,
  messages: [
    { role: 'user', content: 'stream' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: {} }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] },
  ],
});

/** One POST; resolves with [milliseconds, bytes received]. */
function post(base, body) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(new URL('/v1/messages', base), { method: 'POST', agent, headers: { 'content-type': 'application/json', 'x-api-key': 'bench' } }, (res) => {
      let bytes = 0;
      res.on('data', (chunk) => (bytes += chunk.length));
      res.on('end', () => (res.statusCode === 200 ? resolve([performance.now() - started, bytes]) : reject(new Error(`status ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const median = (values) => percentile(values, 50);

// Warm both paths (connections, JIT) before measuring.
for (let i = 0; i < 200; i++) {
  await post(upstream, small);
  await post(proxy, small);
}
const direct = [];
const proxied = [];
for (let i = 0; i < CALLS; i++) {
  // Alternate which goes first so neither always runs on a warmer cache.
  if (i % 2 === 0) {
    direct.push((await post(upstream, small))[0]);
    proxied.push((await post(proxy, small))[0]);
  } else {
    proxied.push((await post(proxy, small))[0]);
    direct.push((await post(upstream, small))[0]);
  }
}

await post(upstream, large);
await post(proxy, large);
await post(tcpRelay, large);
const proxyChild = children[1];
const cpuBefore = cpuSeconds(proxyChild);
let cpuExcluded = 0; // what the proxy process spent (idle) while the TCP relay streamed
let proxiedBytes = 0;
const directRate = [];
const proxiedRate = [];
const relayRate = [];
let streamBytes = 0;
for (let i = 0; i < STREAMS; i++) {
  const [dt, db] = await post(upstream, large);
  const [pt, pb] = await post(proxy, large);
  if (db !== pb) throw new Error(`the proxied stream differs in length: ${pb} vs ${db} bytes`);
  streamBytes = db;
  proxiedBytes += pb;
  directRate.push(db / dt / 1000); // MB/s
  proxiedRate.push(pb / pt / 1000);
  const cpuPaused = cpuSeconds(proxyChild);
  const [rt, rb] = await post(tcpRelay, large);
  cpuExcluded += cpuSeconds(proxyChild) - cpuPaused;
  relayRate.push(rb / rt / 1000);
}

const cpuAfter = cpuSeconds(proxyChild);
const best = (values) => Math.max(...values);
const row = (name, d, p, extra) => `${name.padEnd(30)}${d.padStart(10)}${p.padStart(12)}${extra.padStart(14)}`;
const ms = (v) => v.toFixed(3);
const addedP50 = median(proxied) - median(direct);
const addedP99 = percentile(proxied, 99) - percentile(direct, 99);
const ratio = median(proxiedRate) / median(directRate);
console.log(`proxy-llm: ${CALLS} small calls and ${STREAMS} streams of ${(streamBytes / 1e6).toFixed(1)} MB each way, node ${process.version}`);
console.log(row('', 'direct', 'proxied', 'added'));
console.log(row('latency p50 (ms)', ms(median(direct)), ms(median(proxied)), ms(addedP50)));
console.log(row('latency p99 (ms)', ms(percentile(direct, 99)), ms(percentile(proxied, 99)), ms(addedP99)));
console.log(row('stream throughput (MB/s)', median(directRate).toFixed(1), median(proxiedRate).toFixed(1), `ratio ${ratio.toFixed(3)}`));
console.log(row('  best stream (MB/s)', best(directRate).toFixed(1), best(proxiedRate).toFixed(1), `ratio ${(best(proxiedRate) / best(directRate)).toFixed(3)}`));
const relayRatio = median(relayRate) / median(directRate);
console.log(row('  raw TCP relay (MB/s)', median(directRate).toFixed(1), median(relayRate).toFixed(1), `ratio ${relayRatio.toFixed(3)}`));
if (cpuBefore !== null && cpuAfter !== null) console.log(row('proxy CPU per MB relayed (ms)', '', (((cpuAfter - cpuBefore - cpuExcluded) * 1000) / (proxiedBytes / 1e6)).toFixed(2), ''));
console.log(`machine load (1/5/15 min): ${(await import('node:os')).loadavg().map((l) => l.toFixed(2)).join(' ')} on ${(await import('node:os')).cpus().length} CPUs`);
console.log(`added p50 ${ms(addedP50)} ms: ${addedP50 < 1 ? 'meets' : 'MISSES'} the target (< 1 ms)`);
console.log(`throughput ratio ${ratio.toFixed(3)}: ${ratio >= 0.9 ? 'meets' : 'MISSES'} the target (>= 0.9)`);
emitRow({ row: 'LLM proxy added latency p50', measured: median(proxied), baseline: median(direct), unit: 'ms', target: '+< 1 ms', met: addedP50 < 1 });
emitRow({ row: 'LLM proxy added latency p99', measured: percentile(proxied, 99), baseline: percentile(direct, 99), unit: 'ms', target: 'report', met: null });
emitRow({ row: 'LLM proxy stream throughput', measured: median(proxiedRate), baseline: median(directRate), unit: 'MB/s', target: '>= 0.9x', met: ratio >= 0.9, note: `a raw TCP relay in its place: ${relayRatio.toFixed(2)}x` });
emitRow({ row: 'raw TCP relay stream throughput (reference)', measured: median(relayRate), baseline: median(directRate), unit: 'MB/s', target: 'reference', met: null });
agent.destroy();
stopAll();
