#!/usr/bin/env node
// Egress interception throughput: one large HTTPS download from a loopback server (its own process,
// its own CA) fetched by curl directly, through our egress proxy (intercepted, and as a plain tunnel),
// and through mitmdump doing the same interception (TLS terminated, HTTP/1.1 relayed, the response
// streamed). Like for like: our proxy runs as its own process, as a repetition runs it (the built
// `intutic start` bundle, events and log written to files), and mitmdump as its own. Prints MB/s and
// each proxy's CPU per MB (medians of interleaved runs, with their spreads) and the ratios; the
// target is at least 1.2x mitmdump's throughput at no more CPU per MB.
// INTUTIC_BENCH_EGRESS_DELAY_MS=N slows our side on purpose (a `--resolve` through a delaying relay)
// to show that a missed target fails the bench.
// Usage: node scripts/bench/proxy-egress.mjs [--mb 50] [--runs 9] [--mitm-buffered]
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { emitRow } from './_rows.mjs';

const self = fileURLToPath(import.meta.url);
const root = join(self, '..', '..', '..');

await main();

async function main() {
  const { values } = parseArgs({
    options: { mb: { type: 'string', default: '50' }, runs: { type: 'string', default: '9' }, 'mitm-buffered': { type: 'boolean', default: false } },
  });
  const mb = Number(values.mb);
  const runs = Number(values.runs);
  const { default: forge } = await import('node-forge');
  const bundle = join(root, 'apps/cli/dist/intutic-proxy.mjs');
  if (!existsSync(bundle)) throw new Error(`${bundle} is missing: run \`npm run build\` first`);
  const dir = mkdtempSync(join(tmpdir(), 'intutic-bench-egress-'));
  const cleanups = [];
  try {
    // The upstream's own CA and leaf for "localhost" (the one name every proxy here resolves alike).
    const up = selfSignedLocalhost(forge);
    writeFileSync(join(dir, 'up-ca.pem'), up.certPem);
    writeFileSync(join(dir, 'up-key.pem'), up.keyPem);
    const upstream = await startUpstream(dir, mb);
    cleanups.push(() => upstream.child.kill());
    const url = `https://localhost:${upstream.port}/blob`;
    const bytes = mb * 1024 * 1024;

    // Each mode: curl arguments, and how to read the proxy's CPU time (ms) so far.
    const modes = [{ name: 'direct (no proxy)', args: ['--cacert', join(dir, 'up-ca.pem'), '--resolve', `localhost:${upstream.port}:127.0.0.1`], cpuMs: null }];
    for (const [name, intercept] of [
      ['intutic egress, intercepted', true],
      ['intutic egress, plain tunnel', false],
    ]) {
      const proxy = await startOurs(bundle, dir, upstream.port, intercept);
      cleanups.push(() => proxy.child.kill());
      const caPath = join(dir, `ours-${intercept}-ca.pem`);
      writeFileSync(caPath, readFileSync(proxy.caPath, 'utf8') + up.certPem);
      modes.push({ name, args: ['--cacert', caPath, '--proxy', proxy.url], cpuMs: () => processCpuMs(proxy.child.pid) });
    }

    const mitm = await mitmdumpAvailable();
    if (mitm.ok) {
      const variants = [['mitmdump, intercepted, streaming', ['--set', 'stream_large_bodies=1m']]];
      // Buffering 50 MB is mitmproxy's default and very slow here; opt in to measure it.
      if (values['mitm-buffered']) variants.push(['mitmdump, intercepted, buffered', []]);
      for (const [name, extra] of variants) {
        const proxy = await startMitmdump(dir, join(dir, 'up-ca.pem'), extra);
        cleanups.push(() => proxy.child.kill());
        modes.push({
          name: `${name} (${mitm.version})`,
          args: ['--cacert', proxy.caPath, '--proxy', `http://127.0.0.1:${proxy.port}`],
          cpuMs: () => processCpuMs(proxy.child.pid),
        });
      }
    }

    // One round unmeasured first (connections, leaf certificates, JIT); then interleaved runs, so a
    // busy machine slows every mode alike; medians per mode.
    for (const mode of modes) await curlSpeed([...mode.args, url], bytes);
    const samples = new Map(modes.map((m) => [m.name, { mbps: [], cpuPerMb: [] }]));
    for (let run = 0; run < runs; run++) {
      for (const mode of modes) {
        const cpuBefore = mode.cpuMs?.();
        const speed = await curlSpeed([...mode.args, url], bytes);
        const sample = samples.get(mode.name);
        sample.mbps.push(speed / 1024 / 1024);
        if (mode.cpuMs) sample.cpuPerMb.push((mode.cpuMs() - cpuBefore) / mb);
      }
    }
    const median = (xs) => (xs.length === 0 ? NaN : [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]);
    const spread = (xs) => (xs.length === 0 ? '-' : `${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}`);
    const rows = modes.map((m) => {
      const { mbps, cpuPerMb } = samples.get(m.name);
      return { name: m.name, mbps: median(mbps), mbpsSpread: spread(mbps), cpu: median(cpuPerMb), cpuSpread: spread(cpuPerMb) };
    });

    const direct = rows[0].mbps;
    console.log(`egress throughput: ${mb} MB over HTTPS from a loopback server (own process), curl as the client, median of ${runs} interleaved runs`);
    console.log(
      `${'mode'.padEnd(50)} ${'MB/s'.padStart(7)} ${'spread'.padStart(13)} ${'vs direct'.padStart(10)} ${'CPU ms/MB'.padStart(10)} ${'spread'.padStart(11)}`,
    );
    for (const r of rows)
      console.log(
        `${r.name.padEnd(50)} ${r.mbps.toFixed(1).padStart(7)} ${r.mbpsSpread.padStart(13)} ${(r.mbps / direct).toFixed(2).padStart(10)} ${(Number.isNaN(r.cpu) ? '-' : r.cpu.toFixed(2)).padStart(10)} ${r.cpuSpread.padStart(11)}`,
      );
    if (!mitm.ok) console.log(`${'mitmdump'.padEnd(50)} ${'n/a'.padStart(7)}  unavailable: ${mitm.reason}`);
    const ours = rows.find((r) => r.name === 'intutic egress, intercepted');
    const tunnel = rows.find((r) => r.name === 'intutic egress, plain tunnel');
    const mitmRow = rows.find((r) => r.name.startsWith('mitmdump, intercepted, streaming'));
    if (mitmRow) {
      console.log(
        `intutic / mitmdump (same interception, each its own process): throughput ${(ours.mbps / mitmRow.mbps).toFixed(2)}x (target >= 1.2x), CPU per MB ${(ours.cpu / mitmRow.cpu).toFixed(2)}x (target <= 1x)`,
      );
    }
    // Without mitmdump there is nothing to compare with: the row fails, saying why.
    emitRow({
      row: `egress: ${mb} MB intercepted HTTPS, ours vs mitmdump`,
      measured: ours.mbps,
      baseline: mitmRow ? mitmRow.mbps : null,
      unit: 'MB/s',
      target: '>= 1.2x',
      met: mitmRow ? ours.mbps / mitmRow.mbps >= 1.2 : false,
      note: mitmRow ? `spreads: ours ${ours.mbpsSpread}, mitmdump ${mitmRow.mbpsSpread} MB/s` : `mitmdump unavailable: ${mitm.reason}`,
    });
    emitRow({
      row: 'egress: proxy CPU per MB, ours vs mitmdump',
      measured: ours.cpu,
      baseline: mitmRow ? mitmRow.cpu : null,
      unit: 'ms/MB',
      target: '<= 1x',
      met: mitmRow ? ours.cpu <= mitmRow.cpu : false,
      note: mitmRow ? `spreads: ours ${ours.cpuSpread}, mitmdump ${mitmRow.cpuSpread} ms/MB` : `mitmdump unavailable: ${mitm.reason}`,
    });
    emitRow({ row: 'egress: intercepted vs direct', measured: ours.mbps, baseline: direct, unit: 'MB/s', target: 'compare', met: null });
    emitRow({ row: 'egress: plain tunnel vs direct', measured: tunnel.mbps, baseline: direct, unit: 'MB/s', target: 'compare', met: null });
  } finally {
    for (const c of cleanups) await c();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Our proxy as a repetition runs it: its own process, a plan whose fault names the host but never
 * fires (so every request is intercepted and forwarded) or no plan (a plain tunnel), events and log
 * written to files. It trusts the upstream's CA as any process does, through NODE_EXTRA_CA_CERTS.
 */
async function startOurs(bundle, dir, upstreamPort, intercept) {
  const tag = intercept ? 'intercepted' : 'tunnel';
  const args = ['start', '--events', join(dir, `${tag}-events.jsonl`), '--log', join(dir, `${tag}-proxy.log`), '--ca-out', join(dir, `${tag}-ca.pem`)];
  args.push('--resolve', `localhost=127.0.0.1:${await delayedPort(upstreamPort)}`, '--allow-private-host', '127.0.0.1');
  if (intercept) {
    const plan = {
      schema_version: 1,
      experiment: 'bench',
      run_id: 'bench',
      canary: 'E-INTUTIC-00000000',
      faults: [{ index: 0, id: 'egress.dns_fail', match: { host: 'localhost' }, after_calls: 1e9, times: null, options: {} }],
    };
    writeFileSync(join(dir, 'plan.json'), JSON.stringify(plan));
    args.push('--plan', join(dir, 'plan.json'));
  }
  const child = spawn(process.execPath, [bundle, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, NODE_EXTRA_CA_CERTS: join(dir, 'up-ca.pem') },
  });
  const url = await new Promise((resolve, reject) => {
    let said = '';
    child.stdout.on('data', (d) => {
      said += d;
      const match = /listening on (\S+)/.exec(said);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`our proxy exited ${code} before listening`)));
  });
  return { child, url, caPath: join(dir, `${tag}-ca.pem`) };
}

/** The upstream's port, or with INTUTIC_BENCH_EGRESS_DELAY_MS set, a relay's that delays each chunk. */
async function delayedPort(port) {
  const delay = Number(process.env.INTUTIC_BENCH_EGRESS_DELAY_MS ?? 0);
  if (!delay) return port;
  const { createServer: createTcpServer, connect } = await import('node:net');
  const relay = createTcpServer((client) => {
    const server = connect(port, '127.0.0.1');
    client.on('data', (d) => server.write(d));
    server.on('data', (d) => {
      server.pause();
      setTimeout(() => (client.write(d), server.resume()), delay);
    });
    client.on('close', () => server.destroy());
    server.on('close', () => client.destroy());
    client.on('error', () => server.destroy());
    server.on('error', () => client.destroy());
  });
  await new Promise((resolve) => relay.listen(0, '127.0.0.1', resolve));
  relay.unref();
  return relay.address().port;
}

/** utime + stime of a process and its threads, from /proc (Linux), in ms. */
function processCpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // After "pid (comm) ": state is field 3, so utime (14) and stime (15) sit at indexes 11 and 12.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

function selfSignedLocalhost(forge) {
  const keys = forge.pki.rsa.generateKeyPair(2048);
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = '01';
  cert.validity.notBefore = new Date(Date.now() - 86_400_000);
  cert.validity.notAfter = new Date(Date.now() + 86_400_000);
  const subject = [{ name: 'commonName', value: 'localhost' }];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true },
    { name: 'keyUsage', keyCertSign: true, digitalSignature: true, keyEncipherment: true },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      altNames: [
        { type: 2, value: 'localhost' },
        { type: 7, ip: '127.0.0.1' },
      ],
    },
  ]);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: forge.pki.privateKeyToPem(keys.privateKey) };
}

/** The upstream runs in its own process so its TLS work never shares a thread with a proxy's. */
function startUpstream(dir, mb) {
  const script = `
    const https = require('node:https'); const fs = require('node:fs');
    const blob = Buffer.alloc(${mb} * 1024 * 1024, 7);
    const server = https.createServer({ cert: fs.readFileSync(process.argv[1]), key: fs.readFileSync(process.argv[2]) }, (req, res) => {
      req.resume(); res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': blob.length }); res.end(blob);
    });
    server.listen(0, '127.0.0.1', () => console.log(server.address().port));`;
  const child = spawn(process.execPath, ['-e', script, join(dir, 'up-ca.pem'), join(dir, 'up-key.pem')], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout.once('data', (d) => resolve({ child, port: Number(String(d).trim()) }));
    child.once('exit', (code) => reject(new Error(`upstream exited ${code}`)));
  });
}

function curlSpeed(args, bytes) {
  return new Promise((resolve, reject) => {
    execFile(
      'curl',
      ['-sS', '-o', '/dev/null', '-w', '%{http_code} %{size_download} %{time_total}', '--noproxy', '', ...args],
      { env: { PATH: process.env.PATH } },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`curl ${args.join(' ')}: ${stderr || error.message}`));
        const [code, size, total] = stdout.trim().split(' ');
        if (code !== '200' || Number(size) !== bytes) return reject(new Error(`curl got ${code} with ${size} bytes`));
        resolve(bytes / Number(total));
      },
    );
  });
}

function mitmdumpAvailable() {
  return new Promise((resolve) => {
    execFile('mitmdump', ['--version'], (error, stdout) => {
      if (error)
        resolve({ ok: false, reason: `mitmdump not runnable (${error.code === 'ENOENT' ? 'not installed: apt-get install -y mitmproxy' : error.message})` });
      else resolve({ ok: true, version: `mitmproxy ${/Mitmproxy:\s*(\S+)/.exec(stdout)?.[1] ?? '?'}` });
    });
  });
}

async function startMitmdump(dir, upstreamCa, extra) {
  const confdir = mkdtempSync(join(dir, 'mitm-'));
  const port = await new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
  });
  const args = [
    '-q',
    '--listen-host',
    '127.0.0.1',
    '--listen-port',
    String(port),
    '--set',
    `confdir=${confdir}`,
    '--set',
    `ssl_verify_upstream_trusted_ca=${upstreamCa}`,
    ...extra,
  ];
  const child = spawn('mitmdump', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const caPath = join(confdir, 'mitmproxy-ca-cert.pem');
  for (let i = 0; i < 100; i++) {
    if (existsSync(caPath) && (await canConnect(port))) return { child, port, caPath, ca: readFileSync(caPath, 'utf8') };
    if (child.exitCode !== null) throw new Error(`mitmdump exited: ${stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill();
  throw new Error(`mitmdump did not start: ${stderr}`);
}

function canConnect(port) {
  return new Promise((resolve) => {
    import('node:net').then(({ connect }) => {
      const s = connect({ host: '127.0.0.1', port });
      s.once('connect', () => (s.destroy(), resolve(true)));
      s.once('error', () => resolve(false));
    });
  });
}
