// Sandbox start-to-exit overhead: `true` through runInSandbox next to two baselines, N runs each,
// interleaved, medians, spreads and ratios (target: within 1.5x of each):
// - a plain `docker run --rm --entrypoint true <same image>`, which pays for starting the docker CLI;
// - the same container created, started, waited for and removed through the engine API in this
//   process, as runInSandbox talks to the engine: like for like.
// Both baselines skip the entrypoint on purpose: that is what the sandbox's own work (env block,
// firewall, user switch) is measured against.
// Usage: node scripts/bench/sandbox.mjs [runs=15]
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { register } from 'tsx/esm/api';
import { emitRow } from './_rows.mjs';

register();
const { checkEngine, ensureSandboxImage, runInSandbox, hostGatewayAddress } = await import('@intutic/sandbox');
const { sandboxBuildEnv } = await import('@intutic/testkit');
const execFileAsync = promisify(execFile);
const runs = Number(process.argv[2] ?? 15);
const version = JSON.parse(readFileSync(new URL('../../apps/cli/package.json', import.meta.url), 'utf8')).version;

const engine = await checkEngine();
// Same build settings as the tests (offline base image, this machine's CA), so the image is shared.
const image = await ensureSandboxImage(engine, { version, variant: 'base', env: sandboxBuildEnv(), onProgress: (line) => process.stderr.write(`  ${line}\n`) });
const gateway = await hostGatewayAddress(engine);
const workspace = mkdtempSync(join(tmpdir(), 'intutic-bench-'));

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
async function time(fn) {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}
const cases = {
  'docker run --rm (plain)': () => execFileAsync('docker', ['run', '--rm', '--entrypoint', 'true', image]),
  'engine API create/start/wait (bare)': async () => {
    const container = await engine.docker.createContainer({ Image: image, Entrypoint: ['true'], Cmd: [] });
    await container.start();
    const { StatusCode } = await container.wait();
    await container.remove({ force: true });
    if (StatusCode !== 0) throw new Error(`the bare container exited ${StatusCode}`);
  },
  'runInSandbox, no network': async () => {
    const r = await runInSandbox(engine, { image, command: 'true', workspace, envNames: [], env: {} });
    if (r.exitCode !== 0) throw new Error(`sandbox exited ${r.exitCode}: ${r.error ?? ''}`);
  },
  'runInSandbox, proxy + firewall': async () => {
    const r = await runInSandbox(engine, { image, command: 'true', workspace, envNames: ['HOME'], env: process.env, proxy: { host: gateway, port: 9 } });
    if (r.exitCode !== 0) throw new Error(`sandbox exited ${r.exitCode}: ${r.error ?? ''}`);
  },
};
const samples = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (const fn of Object.values(cases)) await fn(); // warm-up
for (let i = 0; i < runs; i++) for (const [name, fn] of Object.entries(cases)) samples[name].push(await time(fn));
rmSync(workspace, { recursive: true, force: true });

const BASELINES = ['docker run --rm (plain)', 'engine API create/start/wait (bare)'];
const spread = (xs) => `${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}`;
console.log(`sandbox start-to-exit of \`true\`, ${runs} interleaved runs each, image ${image} (${engine.kind} ${engine.version})`);
for (const [name, xs] of Object.entries(samples)) {
  const m = median(xs);
  const ratios = BASELINES.map((b) => `${(m / median(samples[b])).toFixed(2)}x`).join(' / ');
  console.log(`  ${name.padEnd(36)} median ${m.toFixed(0).padStart(5)} ms (${spread(xs)})   vs CLI / API ${ratios}`);
}
let missed = false;
for (const name of Object.keys(cases).filter((k) => !BASELINES.includes(k))) {
  for (const base of BASELINES) {
    const m = median(samples[name]);
    const baseline = median(samples[base]);
    missed ||= m / baseline > 1.5;
    emitRow({
      row: `sandbox ${name.replace('runInSandbox, ', '')} vs ${base.startsWith('docker') ? '`docker run`' : 'bare engine API'}`,
      measured: m,
      baseline,
      unit: 'ms',
      target: '<= 1.5x',
      met: m / baseline <= 1.5,
    });
  }
}
console.log(`target <= 1.50x of both baselines: ${missed ? 'NOT met' : 'met'}`);
