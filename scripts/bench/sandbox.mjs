// Sandbox start-to-exit overhead: `true` through runInSandbox next to a plain
// `docker run --rm --entrypoint true <same image>`, N runs each, interleaved, medians and their ratio
// (target: within 1.5x). The plain run skips the entrypoint on purpose: that is the baseline the
// sandbox's own work (env block, firewall, user switch) is measured against.
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

const baseline = median(samples['docker run --rm (plain)']);
console.log(`sandbox start-to-exit of \`true\`, ${runs} interleaved runs each, image ${image} (${engine.kind} ${engine.version})`);
for (const [name, xs] of Object.entries(samples)) {
  const m = median(xs);
  console.log(`  ${name.padEnd(32)} median ${m.toFixed(0).padStart(5)} ms   ratio ${(m / baseline).toFixed(2)}x`);
}
const worst = Math.max(
  ...Object.keys(cases)
    .slice(1)
    .map((k) => median(samples[k]) / baseline),
);
console.log(`target <= 1.50x: ${worst <= 1.5 ? 'met' : 'NOT met'} (worst ${worst.toFixed(2)}x)`);
for (const name of Object.keys(cases).slice(1)) {
  const m = median(samples[name]);
  emitRow({
    row: `sandbox ${name.replace('runInSandbox, ', '')} vs docker run`,
    measured: m,
    baseline,
    unit: 'ms',
    target: '<= 1.5x',
    met: m / baseline <= 1.5,
  });
}
