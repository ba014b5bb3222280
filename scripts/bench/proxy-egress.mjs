#!/usr/bin/env node
// Egress interception throughput: one large HTTPS download from a loopback server (its own process,
// its own CA) fetched by curl directly, through our egress proxy (intercepted, and as a plain tunnel),
// and through mitmdump doing the same interception. Prints MB/s (median of runs) and the ratios.
// Usage: node scripts/bench/proxy-egress.mjs [--mb 50] [--runs 5] [--mitm-buffered]  (re-runs itself under tsx)
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

// The egress handler is TypeScript: run under tsx (once) when plain node started us.
if (!process.env.INTUTIC_BENCH_UNDER_TSX) {
  const child = spawn(process.execPath, ['--import', 'tsx', self, ...process.argv.slice(2)], {
    stdio: 'inherit',
    cwd: root,
    env: { ...process.env, INTUTIC_BENCH_UNDER_TSX: '1' },
  });
  child.on('exit', (code) => process.exit(code ?? 1));
} else {
  await main();
}

async function main() {
  const { values } = parseArgs({
    options: { mb: { type: 'string', default: '50' }, runs: { type: 'string', default: '5' }, 'mitm-buffered': { type: 'boolean', default: false } },
  });
  const mb = Number(values.mb);
  const runs = Number(values.runs);
  const { default: forge } = await import('node-forge');
  const { createEgressHandler } = await import(join(root, 'apps/proxy/src/egress/index.ts'));
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
    const selfCpuMs = () => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1000;
    };
    for (const [name, intercept] of [
      ['intutic egress, intercepted', true],
      ['intutic egress, plain tunnel', false],
    ]) {
      const handler = await createEgressHandler({
        // A fault that names the host but never fires: every request is intercepted and forwarded.
        plan: intercept
          ? {
              schema_version: 1,
              experiment: 'bench',
              run_id: 'bench',
              canary: 'E-INTUTIC-00000000',
              faults: [{ index: 0, id: 'egress.dns_fail', match: { host: 'localhost' }, after_calls: 1e9, times: null, options: {} }],
            }
          : null,
        events: null,
        hostOverrides: { localhost: `127.0.0.1:${upstream.port}` },
        upstreamCa: up.certPem,
        log: () => undefined,
      });
      const server = createServer((req, res) => handler.handleForwardRequest(req, res));
      server.on('connect', (req, socket, head) => handler.handleConnect(req, socket, head));
      await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
      const caPath = join(dir, `ours-${intercept}-ca.pem`);
      writeFileSync(caPath, handler.caCertPem + up.certPem);
      cleanups.push(async () => {
        await handler.close();
        server.closeAllConnections();
        server.close();
      });
      modes.push({ name, args: ['--cacert', caPath, '--proxy', `http://127.0.0.1:${server.address().port}`], cpuMs: selfCpuMs });
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

    // Interleaved runs, so a busy machine slows every mode alike; medians per mode.
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
    const rows = modes.map((m) => ({ name: m.name, mbps: median(samples.get(m.name).mbps), cpu: median(samples.get(m.name).cpuPerMb) }));

    const direct = rows[0].mbps;
    console.log(`egress throughput: ${mb} MB over HTTPS from a loopback server (own process), curl as the client, median of ${runs} interleaved runs`);
    console.log(`${'mode'.padEnd(58)} ${'MB/s'.padStart(7)} ${'vs direct'.padStart(10)} ${'proxy CPU ms/MB'.padStart(16)}`);
    for (const r of rows)
      console.log(
        `${r.name.padEnd(58)} ${r.mbps.toFixed(1).padStart(7)} ${(r.mbps / direct).toFixed(2).padStart(10)} ${(Number.isNaN(r.cpu) ? '-' : r.cpu.toFixed(2)).padStart(16)}`,
      );
    if (!mitm.ok) console.log(`${'mitmdump'.padEnd(58)} ${'n/a'.padStart(7)}  unavailable: ${mitm.reason}`);
    const ours = rows.find((r) => r.name === 'intutic egress, intercepted');
    const tunnel = rows.find((r) => r.name === 'intutic egress, plain tunnel');
    const mitmRow = rows.find((r) => r.name.startsWith('mitmdump, intercepted, streaming'));
    if (mitmRow) {
      console.log(
        `intutic / mitmdump (same interception): throughput ${(ours.mbps / mitmRow.mbps).toFixed(2)}x, CPU per MB ${(ours.cpu / mitmRow.cpu).toFixed(2)}x`,
      );
    }
    // For `npm run bench`. The issue sets no target here: the comparison is the result.
    const cpuNote = mitmRow
      ? `proxy CPU per MB: ours ${ours.cpu.toFixed(2)} ms, mitmdump ${mitmRow.cpu.toFixed(2)} ms`
      : `mitmdump unavailable: ${mitm.reason}`;
    emitRow({
      row: `egress: ${mb} MB intercepted HTTPS, ours vs mitmdump`,
      measured: ours.mbps,
      baseline: mitmRow ? mitmRow.mbps : null,
      unit: 'MB/s',
      target: 'compare',
      met: null,
      note: cpuNote,
    });
    emitRow({ row: 'egress: intercepted vs direct', measured: ours.mbps, baseline: direct, unit: 'MB/s', target: 'compare', met: null });
    emitRow({ row: 'egress: plain tunnel vs direct', measured: tunnel.mbps, baseline: direct, unit: 'MB/s', target: 'compare', met: null });
  } finally {
    for (const c of cleanups) await c();
    rmSync(dir, { recursive: true, force: true });
  }
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
