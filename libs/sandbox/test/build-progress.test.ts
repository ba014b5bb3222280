// The image build reporter: docker's `Step n/m : …` lines parsed, one redrawn line per image on a
// terminal and one line per step otherwise, every line in the log file, the log's tail on failure.
import { readFileSync, rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { IntuticError } from '@intutic/errors';
import {
  BUILD_OUTPUT_HINT,
  createBuildProgress,
  describeInstruction,
  parseStepLine,
  withBuildProgress,
  type BuildProgressOptions,
} from '../src/build-progress.ts';
import { scratchDir } from '@intutic/testkit';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A sink that records what is written, a log dir of its own and a clock the test moves. */
function harness(sink: { isTTY?: boolean; columns?: number } = {}, extra: Partial<BuildProgressOptions> = {}) {
  const logDir = scratchDir('intutic-build-progress-');
  dirs.push(logDir);
  let out = '';
  const clock = { t: 1_000_000 };
  const options: BuildProgressOptions = { sink: { ...sink, write: (text: string) => (out += text) }, logDir, now: () => clock.t, ...extra };
  return { options, clock, output: () => out };
}

/** A build of one image as the builders and docker report it: three steps, apt's chatter in the last. */
const BUILD = [
  'building intutic/sandbox:9.9.9-node from local/debian:bookworm (first use; this takes a few minutes)',
  'Step 1/3 : FROM local/debian:bookworm',
  ' ---> 01bfdf5f4bb6',
  'Step 2/3 : ARG WITH_NODE=0',
  ' ---> Running in 0a1b2c3d4e5f',
  'Step 3/3 : RUN set -eu;     export DEBIAN_FRONTEND=noninteractive;     apt-get update;     apt-get install -y --no-install-recommends ca-certificates curl git',
  ' ---> Running in 1f2e3d4c5b6a',
  ...Array.from({ length: 30 }, (_, i) => `Unpacking package-${i} (1.0-${i}) ...`),
  'Successfully built 0123456789ab',
  'Successfully tagged intutic/sandbox:9.9.9-node',
  'built intutic/sandbox:9.9.9-node',
];

describe('parseStepLine', () => {
  it('reads n, m and what the step does', () => {
    expect(parseStepLine('Step 5/8 : COPY entrypoint.sh /usr/local/bin/intutic-sandbox-entrypoint')).toEqual({
      n: 5,
      m: 8,
      what: 'COPY entrypoint.sh /usr/local/bin/intutic-sandbox-entrypoint',
      works: true,
    });
    expect(parseStepLine(BUILD[5]!)).toEqual({ n: 3, m: 3, what: 'apt-get install ca-certificates curl git', works: true });
    expect(parseStepLine(BUILD[3]!)).toEqual({ n: 2, m: 3, what: 'ARG WITH_NODE=0', works: false });
    expect(parseStepLine(' ---> Running in 1f2e3d4c5b6a')).toBeUndefined();
    expect(parseStepLine('Get:1 http://deb.debian.org/debian bookworm InRelease [151 kB]')).toBeUndefined();
  });

  it('shortens a step to a few words', () => {
    expect(
      describeInstruction(
        'RUN set -eu; npm install -g --no-audit ${NPM_REGISTRY:+--registry "$NPM_REGISTRY"} "@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}"',
      ),
    ).toBe('npm install @anthropic-ai/claude-code');
    expect(describeInstruction('RUN set -eu; if [ -f /opt/intutic/mcp-proxy/intutic-mcp-proxy.mjs ]; then chmod 0755 x; fi', 30)).toBe(
      'if [ -f /opt/intutic/mcp-prox…',
    );
    expect(describeInstruction('ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt')).toBe(
      'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt',
    );
  });
});

describe('createBuildProgress', () => {
  it('prints a line per step that does work when the sink is not a terminal, and the log path once', () => {
    const h = harness();
    const progress = createBuildProgress(h.options);
    for (const line of BUILD) {
      progress.onProgress(line);
      h.clock.t += 1_000;
    }
    progress.finish();
    const lines = h.output().trimEnd().split('\n');
    expect(lines).toEqual([
      `full build log: ${progress.logFile}`,
      BUILD[0],
      '  step 1/3  FROM local/debian:bookworm  (at 1s)',
      '  step 3/3  apt-get install ca-certificates curl git  (at 5s)',
      `built intutic/sandbox:9.9.9-node in ${BUILD.length - 1}s (3 steps)`,
    ]);
    expect(h.output()).not.toContain('\r');
  });

  it('redraws one line per image in place on a terminal', () => {
    const h = harness({ isTTY: true, columns: 200 }, { prefix: '[image] ' });
    const progress = createBuildProgress(h.options);
    for (const line of BUILD) {
      progress.onProgress(line);
      h.clock.t += 1_000;
    }
    progress.finish();
    const out = h.output();
    // Two lines stay: the log's path and the finished image; everything else was drawn over.
    expect(out.match(/\n/g)).toHaveLength(2);
    expect(out).toContain('\r\x1b[2K[image] intutic/sandbox:9.9.9-node  step 2/3  ARG WITH_NODE=0  4s');
    expect(out).toContain('\r\x1b[2K[image] intutic/sandbox:9.9.9-node  step 3/3  apt-get install ca-certificates curl git  6s');
    expect(out.endsWith(`\r\x1b[2K[image] built intutic/sandbox:9.9.9-node in ${BUILD.length - 1}s (3 steps)\n`)).toBe(true);
    expect(out).not.toContain('Unpacking');
  });

  it('cuts the redrawn line to the terminal width', () => {
    const h = harness({ isTTY: true, columns: 50 });
    const progress = createBuildProgress(h.options);
    progress.onProgress(BUILD[0]!);
    progress.onProgress(BUILD[5]!);
    const drawn = h.output().split('\r\x1b[2K').pop()!;
    expect(drawn).toHaveLength(49);
    progress.finish();
    expect(h.output().endsWith('\r\x1b[2K')).toBe(true);
  });

  it('keeps every line in the log file, and prints all of them when verbose', () => {
    const h = harness({ isTTY: true }, { verbose: true });
    const progress = createBuildProgress(h.options);
    for (const line of BUILD) progress.onProgress(line);
    progress.finish();
    expect(readFileSync(progress.logFile!, 'utf8')).toBe(BUILD.map((l) => `${l}\n`).join(''));
    expect(h.output()).toBe([`full build log: ${progress.logFile}`, ...BUILD].map((l) => `${l}\n`).join(''));
  });

  it('writes and prints nothing when no image is built', async () => {
    const h = harness({ isTTY: true });
    expect(await withBuildProgress(h.options, async () => 'intutic/sandbox:9.9.9')).toBe('intutic/sandbox:9.9.9');
    expect(h.output()).toBe('');
  });
});

describe('a failed build', () => {
  it("shows where it failed, the log's tail and its path", async () => {
    const h = harness({}, { tailLines: 5 });
    const failure = new Error('The command returned a non-zero code: 100');
    const error = await withBuildProgress(h.options, async (onProgress) => {
      for (const line of BUILD.slice(0, 20)) onProgress(line);
      h.clock.t += 65_000;
      throw failure;
    }).catch((e: unknown) => e);
    expect(error).toBe(failure);
    const out = h.output();
    const logFile = /full build log: (\S+)/.exec(out)![1]!;
    expect(out).toContain(
      `intutic/sandbox:9.9.9-node failed at step 3/3 (apt-get install ca-certificates curl git) after 1m05s; the last 5 lines of its log (all of it: ${logFile}):\n`,
    );
    expect(out.trimEnd().split('\n').slice(-5)).toEqual(BUILD.slice(15, 20).map((l) => `  ${l}`));
    expect(readFileSync(logFile, 'utf8').trimEnd().split('\n')).toEqual(BUILD.slice(0, 20));
  });

  it('only points at the log when the error already carries the build output', async () => {
    const h = harness({ isTTY: true });
    const failure = new IntuticError('E_IMAGE_BUILD_FAILED', 'building intutic/sandbox:9.9.9-node failed', {
      hints: [BUILD_OUTPUT_HINT, '  Unpacking package-1 (1.0-1) ...'],
    });
    await withBuildProgress(h.options, async (onProgress) => {
      for (const line of BUILD.slice(0, 10)) onProgress(line);
      throw failure;
    }).catch(() => undefined);
    const lastLine = h.output().split('\r\x1b[2K').pop()!;
    expect(lastLine).toMatch(
      /^intutic\/sandbox:9\.9\.9-node failed at step 3\/3 \(apt-get install ca-certificates curl git\) after 0s; full build log: \S+\.log\n$/,
    );
    expect(h.output()).not.toContain('Unpacking');
  });
});
