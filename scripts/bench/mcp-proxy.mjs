#!/usr/bin/env node
// Benchmark: the latency the MCP proxy adds to a tools/call. The SDK's own Client calls read_file on
// the real filesystem server, directly and through the standalone proxy bundle (plain, and with a
// policy, an events file and a plan loaded), round-robin in the same run; prints p50/p99 side by
// side and the added p50 against the 2 ms target. Needs the bundle: `npm run build` first.
//   node scripts/bench/mcp-proxy.mjs [--calls 2000] [--warmup 200]
import { existsSync, mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { emitRow } from './_rows.mjs';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const bundle = join(repo, 'apps/mcp-proxy/dist/intutic-mcp-proxy.mjs');
const fsServer = join(repo, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const CALLS = arg('calls', 2000);
const WARMUP = arg('warmup', 200);
const TARGET_P50_MS = 2;

if (!existsSync(bundle)) {
  process.stderr.write(`missing ${bundle}: run \`npm run build\` first\n`);
  process.exit(1);
}

const dir = mkdtempSync(join(tmpdir(), 'bench-mcp-proxy-'));
const root = join(dir, 'root');
mkdirSync(root);
writeFileSync(join(root, 'notes.txt'), 'benchmark notes\n'.repeat(20));
writeFileSync(join(dir, 'empty.json'), JSON.stringify({ rules: [] }));
// A realistic policy: a few rules that do not match a read of notes.txt, so every call is decided and allowed.
writeFileSync(
  join(dir, 'policy.json'),
  JSON.stringify({
    version: 1,
    rules: [
      { id: 'no-secrets', subject: 'path', pattern: '**/.env', action: 'block', mode: 'enforce', reason: 'secrets stay put' },
      { id: 'no-writes-outside', subject: 'tool', pattern: 'move_file', action: 'hold', mode: 'enforce', reason: 'moves need approval' },
      { id: 'keys', subject: 'content', pattern: '/sk-[A-Za-z0-9]{20,}/', action: 'redact', mode: 'enforce', reason: 'api keys' },
    ],
  }),
);
writeFileSync(
  join(dir, 'plan.json'),
  JSON.stringify({
    schema_version: 1,
    experiment: 'bench',
    run_id: 'bench-run',
    canary: 'E-INTUTIC-0000beef',
    faults: [{ index: 0, id: 'tool.error', match: { tool: 'write_file' }, after_calls: 0, times: null, options: {} }],
  }),
);

const baseEnv = { ...process.env, INTUTIC_SNAPSHOT_RULES: join(dir, 'empty.json'), INTUTIC_APPROVED_BYPASSES: join(dir, 'none.json') };
const proxied = [bundle, '--name', 'fs', '--', process.execPath, fsServer, root];
const scenarios = [
  { name: 'direct', args: [fsServer, root], env: baseEnv },
  { name: 'proxy', args: proxied, env: baseEnv },
  {
    name: 'proxy+policy+events+plan',
    args: proxied,
    env: {
      ...baseEnv,
      INTUTIC_SNAPSHOT_RULES: join(dir, 'policy.json'),
      INTUTIC_CHAOS_EVENTS: join(dir, 'events.jsonl'),
      INTUTIC_CHAOS_PLAN: join(dir, 'plan.json'),
    },
  },
];

async function open(scenario) {
  const transport = new StdioClientTransport({ command: process.execPath, args: scenario.args, env: scenario.env, cwd: dir, stderr: 'ignore' });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  return { ...scenario, client, samples: [] };
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const call = (client) => client.callTool({ name: 'read_file', arguments: { path: join(root, 'notes.txt') } });

const sessions = [];
for (const scenario of scenarios) sessions.push(await open(scenario));
for (const s of sessions) for (let i = 0; i < WARMUP; i++) await call(s.client);
// Round-robin in small batches so machine noise lands on every scenario alike.
const BATCH = 50;
for (let done = 0; done < CALLS; done += BATCH) {
  for (const s of sessions) {
    for (let i = 0; i < BATCH; i++) {
      const start = performance.now();
      const result = await call(s.client);
      s.samples.push(performance.now() - start);
      if (result.isError) throw new Error(`${s.name}: read_file failed: ${JSON.stringify(result)}`);
    }
  }
}
for (const s of sessions) await s.client.close();
rmSync(dir, { recursive: true, force: true });

const rows = sessions.map((s) => {
  const sorted = [...s.samples].sort((a, b) => a - b);
  return { name: s.name, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
});
const direct = rows[0];
const fmt = (ms) => `${ms.toFixed(3)} ms`.padStart(10);
console.log(`MCP proxy: tools/call read_file, ${CALLS} calls per scenario after ${WARMUP} warm-up calls (node ${process.version})`);
console.log(`${'scenario'.padEnd(28)}${'p50'.padStart(10)}${'p99'.padStart(10)}${'added p50'.padStart(12)}${'added p99'.padStart(12)}`);
for (const r of rows) {
  console.log(`${r.name.padEnd(28)}${fmt(r.p50)}${fmt(r.p99)}  ${fmt(r.p50 - direct.p50)}  ${fmt(r.p99 - direct.p99)}`);
}
const worst = Math.max(...rows.slice(1).map((r) => r.p50 - direct.p50));
console.log(`added latency p50 (worst proxied scenario): ${worst.toFixed(3)} ms — target < ${TARGET_P50_MS} ms: ${worst < TARGET_P50_MS ? 'met' : 'NOT met'}`);
process.exitCode = worst < TARGET_P50_MS ? 0 : 1;
for (const r of rows.slice(1)) {
  emitRow({
    row: `MCP tools/call p50 (${r.name})`,
    measured: r.p50,
    baseline: direct.p50,
    unit: 'ms',
    target: '+< 2 ms p50',
    met: r.p50 - direct.p50 < TARGET_P50_MS,
    note: undefined,
  });
}
