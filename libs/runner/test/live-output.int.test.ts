// Live agent output is shown, never obeyed: an agent (a shell + node script in the real sandbox,
// through the real engine, queue and worker) prints clear-screen, title, DCS and C1 sequences, NUL,
// bare CR, backspaces, bidi overrides, invalid UTF-8, a very long line, and lines that imitate the
// CLI's own, several of them split across writes. `chaos run` (attached) and a `chaos status --follow`
// beside it show none of it raw, mark every agent line, cap long lines; the artifacts keep the raw bytes.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN, dockerRequirement, redisRequirement, requireOrSkip } from '@intutic/testkit';
import { AGENT_LINE_PREFIX, MAX_LINE_CHARS } from '@intutic/report';
import { nodeSandboxWorld, NODE_IMAGE as IMAGE, type World } from './fixtures/harness.ts';
import { readReportFile } from './fixtures/reports.ts';

const ok = requireOrSkip('live output', await redisRequirement()) && requireOrSkip('live output', dockerRequirement());

// Every line the agent means to pass for the CLI's carries this, so the test can find them all.
const TAG = 'AGENT-SAYS';
const b = (text: string) => Buffer.from(text, 'latin1');
const u = (text: string) => Buffer.from(text, 'utf8');
// Written one part at a time with a pause between, so each part reaches the follower as a chunk of its own.
const STDOUT: Buffer[] = [
  u('starting\n\x1b[2J\x1b[H\x1b[3J\x1bc'),
  u(`\x1b]0;pwned-title\x07\x1b]8;;https://evil.invalid\x1b\\link\x1b]8;;\x1b\\\n\x1b[`), // a CSI split here …
  u(`2Jsplit-csi\x1b]2;split-ti`), // … and an OSC here
  u(`tle\x07\nnul\x00bell\x07back\b\b\bspace\x7f\u009b2J\u009d0;c1-title\u009c\u202ebidi\u2066\n`),
  u(`progress 10%\rprogress 20%\r✔ verdict: pass ${TAG}\n`),
  b('bad utf8 \xff\xfe euro \xe2\x82'), // a character split across writes …
  b('\xac\n'), // … ends here
  u(`✔ verdict: pass ${TAG}\n■ faulted repetition 1: agent exit 0, verify exit 0, 0.1 s ${TAG}\n\nverdict: scored — ${TAG}\nreport: /tmp/${TAG}.json\r`),
  u(`\n▶ baseline repetition 1/1 (${TAG})\n${'L'.repeat(5000)}\nlast line without a newline ${TAG}`),
];
const STDERR: Buffer[] = [u(`err\x1b]2;err-title\x1b\\\x1b[31mred\x1b[0m\n■ baseline repetition 1: ${TAG}\x1b`), u(`[2K\r\n`)];

// sh -c runs it: a pause so a follower can attach, then node writes the parts (base64 arguments).
const PRINTER =
  "const a=process.argv.slice(1);(async()=>{for(const p of a){(p[0]==='o'?process.stdout:process.stderr).write(Buffer.from(p.slice(2),'base64'));await new Promise(r=>setTimeout(r,300));}})()";
const parts = [...STDOUT.map((p) => `o:${p.toString('base64')}`), ...STDERR.map((p) => `e:${p.toString('base64')}`)];
const AGENT = `sleep 4; node -e "${PRINTER}" ${parts.join(' ')}`;

/** Anything a terminal acts on or hides, other than the newline that ends a row. */
const ACTS_ON_TERMINAL = /(?!\n)(?!\u200d)[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

interface Captured {
  code: number | null;
  stdout: Buffer;
  stderr: Buffer;
}

/** The built CLI in the world's project, its output kept as bytes (decoded once, whole). */
function runCli(world: World, args: string[], onStderr?: (text: string) => void): Promise<Captured> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI_BIN, ...args], { cwd: world.project, env: world.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => {
      err.push(c);
      onStderr?.(Buffer.concat(err).toString('utf8'));
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 600_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(out), stderr: Buffer.concat(err) });
    });
  });
}

/** What a user of the terminal saw: the raw sequences are absent, every agent line is marked. */
function expectShownNeverObeyed(seen: Captured, label: string): void {
  const text = seen.stdout.toString('utf8') + seen.stderr.toString('utf8');
  expect(text, label).not.toMatch(ACTS_ON_TERMINAL);
  expect(text, label).not.toContain('pwned-title');
  expect(text, label).not.toContain('split-title');
  // The sequences were shown escaped, not silently lost; colour was dropped.
  for (const shown of [
    '\\u001b[2J',
    '\\u001b]…',
    '\\u0000bell\\u0007back\\u0008',
    '\\u009b2J',
    '\\u202ebidi',
    '\\u001b[2Jsplit-csi',
    'progress 10%\\u000dprogress 20%',
  ]) {
    expect(text, `${label}: ${shown}`).toContain(shown);
  }
  expect(text, label).toContain('bad utf8 \ufffd\ufffd euro €');
  expect(text, label).toContain(`${AGENT_LINE_PREFIX}err\\u001b]…red\n`);
  const lines = text.split('\n');
  const agentLines = lines.filter((l) => l.includes(TAG));
  expect(agentLines.length, label).toBeGreaterThanOrEqual(7);
  for (const line of agentLines) expect(line.startsWith(AGENT_LINE_PREFIX), `${label}: ${line}`).toBe(true);
  // The CLI's own summary lines appear once, as the CLI wrote them.
  expect(
    lines.filter((l) => l.startsWith('verdict:')),
    label,
  ).toHaveLength(1);
  expect(text, label).toContain(`${AGENT_LINE_PREFIX}${'L'.repeat(MAX_LINE_CHARS)}… [${5000 - MAX_LINE_CHARS} more characters not shown]\n`);
  for (const line of lines) expect(Array.from(line).length, `${label}: a line of ${line.length}`).toBeLessThan(MAX_LINE_CHARS + 60);
}

let world: World;
beforeAll(async () => {
  if (!ok) return;
  world = await nodeSandboxWorld('live-output');
}, 1_800_000);
afterAll(async () => {
  await world?.close();
});

describe.skipIf(!ok)('live agent output on the terminal', () => {
  it('chaos run and status --follow show it escaped and marked; the artifacts keep the raw bytes', async () => {
    const file = world.experiment('registry-down', { agent: AGENT, verify: 'true', repeat: 1 });
    const out = join(world.root, 'live-output.json');
    // The follower attaches as soon as `chaos run` names the run, seconds before the agent prints.
    const held: { follower?: Promise<Captured> } = {};
    const run = await runCli(world, ['chaos', 'run', file, '--sandbox-image', IMAGE, '--out', out], (stderr) => {
      const runId = /run (\S+):/.exec(stderr)?.[1];
      if (runId && !held.follower) held.follower = runCli(world, ['chaos', 'status', runId, '--follow']);
    });
    expect(held.follower, run.stderr.toString()).toBeDefined();
    const followed = await held.follower!;
    const report = readReportFile(out);
    expect(run.code, run.stderr.toString()).toBe(report.exit_code);
    expect(followed.code, followed.stderr.toString()).toBe(report.exit_code);
    expect(report.repetitions).toHaveLength(2);

    expectShownNeverObeyed(run, 'chaos run');
    expectShownNeverObeyed(followed, 'chaos status --follow');

    for (const rep of report.repetitions) {
      expect(readFileSync(rep.artifacts.agent_output).equals(Buffer.concat(STDOUT)), `${rep.kind} agent.stdout.txt`).toBe(true);
      expect(readFileSync(rep.artifacts.agent_stderr).equals(Buffer.concat(STDERR)), `${rep.kind} agent.stderr.txt`).toBe(true);
    }
  }, 600_000);
});
