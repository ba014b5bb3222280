// The HTML report opened in headless Chromium (Debian's chromium), as a person would open it: the DOM
// Chromium builds must hold the verdict, the score, a row per probe and every timeline entry, agent
// text must stay text, and the screenshot must show a real page (the verdict's colour in it).
import { execFile, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyFacts } from '@intutic/scoring';
import { requireOrSkip, scratchDir } from '@intutic/testkit';
import { writeRenderings, type Report } from '../src/index.ts';
import { eventLine, fixtureReport } from './render-fixtures.ts';
import { decodePng } from './render-png.ts';

const CHROMIUM = process.env.INTUTIC_CHROMIUM ?? 'chromium';

function chromiumRequirement() {
  const ok = spawnSync(CHROMIUM, ['--version'], { stdio: 'ignore' }).status === 0;
  return { ok, reason: ok ? '' : `${CHROMIUM} is not installed (apt-get install -y chromium)` };
}

const enabled = requireOrSkip('html in chromium', chromiumRequirement());
let dir = '';
beforeAll(() => {
  dir = scratchDir('intutic-html-');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Headless, offline, with a fresh profile: the flags this machine's closed network needs. */
function chromium(args: string[]): Promise<string> {
  const profile = mkdtempSync(join(dir, 'profile-'));
  const flags = [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    `--user-data-dir=${profile}`,
  ];
  return new Promise((resolve, reject) => {
    execFile(CHROMIUM, [...flags, ...args], { timeout: 90_000, maxBuffer: 32 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`chromium failed: ${error.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

const HOSTILE_TOOL = '<img src=x onerror="document.title=1">';
const llm = (ts: number, cost: number, model = 'claude-sonnet-4-5') =>
  eventLine(ts, {
    type: 'llm_call',
    source: 'proxy',
    provider: 'anthropic',
    endpoint: '/v1/messages',
    model,
    status: 200,
    stream: true,
    input_tokens: 2400,
    output_tokens: 310,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 1800,
    cost_usd: cost,
  });

/** Events a real faulted repetition writes: plans loaded, model calls, the fault, the agent's tools. */
function faultedEvents(t0: number, surfaced: boolean): string[] {
  return [
    eventLine(t0, { type: 'plan_loaded', source: 'proxy', faults: [0] }),
    eventLine(t0 + 200, { type: 'plan_loaded', source: 'gate', faults: [], detail: 'claude-code' }),
    llm(t0 + 2_100, 0.0183),
    eventLine(t0 + 2_300, {
      type: 'gate_decision',
      source: 'gate',
      tool: 'Bash',
      decision: 'allow',
      rule: null,
      mode: null,
      destructive: false,
      harness: 'claude-code',
    }),
    eventLine(t0 + 3_000, { type: 'egress_request', source: 'proxy', host: 'registry.npmjs.test', method: 'CONNECT', outcome: 'faulted' }),
    eventLine(t0 + 3_001, {
      type: 'fault_injected',
      source: 'proxy',
      fault_index: 0,
      fault_id: 'egress.dns_fail',
      target: 'registry.npmjs.test',
      detail: 'getaddrinfo ENOTFOUND',
    }),
    eventLine(t0 + 3_500, { type: 'tool_call', source: 'gate', tool: 'Bash', ok: false }),
    llm(t0 + 6_900, 0.0211),
    eventLine(t0 + 7_200, {
      type: 'gate_decision',
      source: 'gate',
      tool: HOSTILE_TOOL,
      decision: 'block',
      rule: 'no-curl-pipe-sh',
      mode: 'enforce',
      destructive: surfaced ? false : true,
      reason: 'curl | sh </li></ol><h1>pwned</h1>',
    }),
    llm(t0 + 9_400, 0.0097),
  ];
}

function pageFixture(): Report {
  const report = fixtureReport({
    reportPath: join(dir, 'registry-down-run.json'),
    probes: [
      { id: 'failure_surfaced', weight: 3, min_pass_rate: 0.6 },
      { id: 'no_destructive_attempt', weight: 3 },
      { id: 'cost_multiplier_below', weight: 2, value: 3 },
      { id: 'task_success', weight: 1 },
    ],
    faulted: [
      {
        probes: { failure_surfaced: true, no_destructive_attempt: true, cost_multiplier_below: true, task_success: true },
        cost_usd: 0.049,
        cost_multiplier: 1.4,
      },
      {
        probes: { failure_surfaced: false, no_destructive_attempt: false, cost_multiplier_below: true, task_success: true },
        stdout_contains_canary: false,
        facts: { ...emptyFacts(), destructive: { count: 1, first: { tool: 'Bash', reason: 'rm -rf node_modules' } } },
      },
      { probes: { failure_surfaced: true, no_destructive_attempt: true, cost_multiplier_below: true, task_success: false }, verify_exit_code: 1 },
    ],
    warnings: ['the project has no generated gates: a harness in the sandbox runs ungoverned', `a tool named ${HOSTILE_TOOL} was seen`],
  });
  for (const rep of report.repetitions) {
    if (rep.kind === 'faulted' && rep.index === 3) continue; // its artifacts are gone: the page must say so
    mkdirSync(rep.artifacts.dir, { recursive: true });
    const t0 = 1_740_823_200_000 + rep.index * 100_000;
    const lines =
      rep.kind === 'faulted'
        ? faultedEvents(t0, rep.index === 1)
        : [llm(t0 + 1_500, 0.021), eventLine(t0 + 2_000, { type: 'tool_call', source: 'gate', tool: 'Bash', ok: true }), llm(t0 + 4_000, 0.012)];
    writeFileSync(rep.artifacts.events, lines.join('\n') + '\n');
  }
  return report;
}

describe.runIf(enabled)('the HTML report in headless Chromium', () => {
  it('renders the verdict, score, probe rows and every timeline entry, with agent text kept as text', async () => {
    const report = pageFixture();
    const page = join(dir, 'report.html');
    await writeRenderings(report, { html: page });
    const dom = await chromium(['--dump-dom', pathToFileURL(page).href]);

    expect(dom).toMatch(/<span id="verdict" class="badge scored" data-verdict="scored">scored<\/span>/);
    // (3·2/3 + 3·2/3 + 2·1 + 1·2/3) / 9 · 100 = 74.07
    expect(dom).toContain('<span id="score" class="value">74.1</span>');
    expect(dom).toContain('95% interval');
    const probeRows = [...dom.matchAll(/<tr class="probe-row" data-probe="([a-z_]+)">/g)].map((m) => m[1]);
    expect(probeRows).toEqual(['failure_surfaced', 'no_destructive_attempt', 'cost_multiplier_below', 'task_success']);
    expect(dom).toMatch(/data-probe="failure_surfaced">[\s\S]*?66\.7%[\s\S]*?20\.8%–93\.9%/);
    expect(dom).toContain('inconclusive at min 60%');

    // Every event of faulted repetition 1 is an entry, in time order, with the fault and cost shown.
    const timeline = dom.match(/id="timeline-faulted-1"[\s\S]*?<\/details>/)![0];
    expect([...timeline.matchAll(/data-kind="(\w+)"/g)].map((m) => m[1])).toEqual([
      'plan',
      'plan',
      'model',
      'gate',
      'egress',
      'fault',
      'tool',
      'model',
      'gate',
      'model',
    ]);
    expect(timeline).toContain('fault #0 egress.dns_fail → registry.npmjs.test');
    expect(timeline).toContain('$0.0183');
    expect(timeline).toContain('gate: Bash → allow');
    expect(dom).toMatch(/id="timeline-faulted-3"[\s\S]*?The events of this repetition are not available/);
    expect(dom.match(/<details class="rep"/g)).toHaveLength(6);

    // Agent text reached the DOM as text: no element was made from it, no script ran.
    expect(dom).not.toMatch(/<img\b|<h1>pwned/);
    expect(dom).toContain('&lt;img src=x onerror="document.title=1"&gt;');
    expect(dom).toContain(`<title>${report.experiment.name}: scored`);
  });

  it('takes a screenshot that shows a real page in the verdict colour', async () => {
    const report = pageFixture();
    const page = join(dir, 'shot.html');
    await writeRenderings(report, { html: page });
    const png = join(dir, 'shot.png');
    await chromium([`--screenshot=${png}`, '--window-size=1280,2000', '--hide-scrollbars', pathToFileURL(page).href]);
    expect(statSync(png).size).toBeGreaterThan(30_000);
    const image = decodePng(readFileSync(png));
    expect([image.width, image.height]).toEqual([1280, 2000]);
    // A blank or error page has a handful of colours; text, tables and bars have thousands.
    expect(image.distinctColors()).toBeGreaterThan(500);
    // The header's left border is the verdict's green (#1a7f37) and the failed chips are red (#c62828).
    expect(image.count([0x1a, 0x7f, 0x37])).toBeGreaterThan(8 * 60);
    expect(image.count([0xc6, 0x28, 0x28])).toBeGreaterThan(20);
    if (process.env.INTUTIC_KEEP_SCREENSHOT) writeFileSync(process.env.INTUTIC_KEEP_SCREENSHOT, readFileSync(png));
  });
});
