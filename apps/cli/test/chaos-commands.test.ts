// `intutic chaos validate | list | schema` run in-process through commander with captured output:
// what they print, their exit codes, and that no input gives a stack trace.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { PassThrough } from 'node:stream';
import { Command, CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { describeError, EXIT, interruptedBy } from '@intutic/errors';
import { FAULTS, PROBES } from '@intutic/faults';
import { registerChaosCommands } from '../src/commands/chaos.ts';
import { wrap } from '../src/commands/chaos-list.ts';
import { runValidate, validateFromDisk } from '../src/commands/chaos-validate.ts';
import { CORPUS_DIR, EXAMPLES_DIR, REPO_ROOT } from '@intutic/experiment/testing';
import { scratchDir } from '@intutic/testkit';

function capture() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { stream, text: () => text };
}

/** Run `intutic <argv>` with only the chaos commands wired, the way cli.ts runs every command. */
async function runChaos(argv: string[], env: Record<string, string> = { NPM_REGISTRY_DOMAIN: 'registry-domain.test' }) {
  const stdout = capture();
  const stderr = capture();
  let code: number = EXIT.ok;
  const ctx = { stdout: stdout.stream, stderr: stderr.stream, env, cwd: REPO_ROOT, version: '0.0.0-test', isTTY: false, signal: new AbortController().signal };
  const program = new Command('intutic').exitOverride().configureOutput({ writeOut: (s) => stdout.stream.write(s), writeErr: (s) => stderr.stream.write(s) });
  registerChaosCommands(program, { ctx, setExit: (c) => (code = c) });
  for (const cmd of program.commands.flatMap((c) => [c, ...c.commands]))
    cmd.exitOverride().configureOutput({ writeOut: (s) => stdout.stream.write(s), writeErr: (s) => stderr.stream.write(s) });
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) code = error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    else {
      const described = describeError(error);
      stderr.stream.write(described.text + '\n');
      code = described.exitCode;
    }
  }
  await new Promise((r) => setImmediate(r));
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

const rel = (p: string) => relative(REPO_ROOT, p);

describe('intutic chaos validate', () => {
  it('exits 0 for the shipped examples and prints one summary line each', async () => {
    const files = ['registry-down.yaml', 'credential-revoked.yaml', 'poisoned-readme.yaml'].map((f) => rel(join(EXAMPLES_DIR, f)));
    const { code, stdout } = await runChaos(['chaos', 'validate', ...files]);
    expect(code).toBe(EXIT.ok);
    expect(stdout.trim().split('\n')).toEqual(files.map((f) => `${f}: valid`));
  });

  it('prints file:line:column: error: message for every error and exits 3', async () => {
    const file = rel(join(CORPUS_DIR, 'several-errors-at-once.yaml'));
    const { code, stdout } = await runChaos(['chaos', 'validate', file]);
    expect(code).toBe(EXIT.couldNotRun);
    const lines = stdout.trim().split('\n');
    expect(lines.slice(0, 5).every((l) => l.startsWith(`${file}:`) && /^[^:]+:\d+:\d+: error: /.test(l))).toBe(true);
    expect(lines[1]).toBe(`${file}:13:20: error: faults[0].retry_after_s: must be at least 0 (got -3)`);
    expect(lines.at(-1)).toBe(`${file}: invalid: 5 errors`);
  });

  it('prints warnings as file:line:column: warning: message, and a file with only warnings is valid', async () => {
    const dir = scratchDir('intutic-validate-');
    const path = join(dir, 'no-wall-clock.yaml');
    const text = readFileSync(join(EXAMPLES_DIR, 'credential-revoked.yaml'), 'utf8').replace('  - wall_clock_s_above: 900\n', '');
    writeFileSync(path, text);
    const { code, stdout } = await runChaos(['chaos', 'validate', path]);
    expect(code).toBe(EXIT.ok);
    expect(stdout).toMatch(new RegExp(`^${path}:\\d+:1: warning: no wall_clock_s_above abort`, 'm'));
    expect(stdout).toContain(`${path}: valid (1 warning)`);
  });

  it('reports a missing file clearly, validates the other files, and exits 3', async () => {
    const good = rel(join(EXAMPLES_DIR, 'registry-down.yaml'));
    const { code, stdout, stderr } = await runChaos(['chaos', 'validate', 'does-not-exist.yaml', good]);
    expect(code).toBe(EXIT.couldNotRun);
    expect(stdout).toContain('does-not-exist.yaml: error: no such file');
    expect(stdout).toContain(`${good}: valid`);
    expect(stdout + stderr).not.toContain('    at ');
  });

  it('refuses a directory given as a file, with the refused-input exit code', async () => {
    const { code, stdout } = await runChaos(['chaos', 'validate', 'examples']);
    expect(code).toBe(EXIT.refusedInput);
    expect(stdout).toContain('examples: error: is a directory');
  });

  it('--json prints machine-readable diagnostics and the normalized experiment of a valid file, placeholders by name', async () => {
    const bad = rel(join(CORPUS_DIR, 'unknown-option-typo.yaml'));
    const good = rel(join(EXAMPLES_DIR, 'registry-down.yaml'));
    const { code, stdout } = await runChaos(['chaos', 'validate', '--json', bad, good]);
    expect(code).toBe(EXIT.couldNotRun);
    const report = JSON.parse(stdout);
    expect(report.valid).toBe(false);
    expect(report.files[0]).toMatchObject({ file: bad, valid: false, warnings: [] });
    expect(report.files[0].errors).toEqual([
      { file: bad, line: 9, column: 5, code: 'unknown-key', message: expect.stringContaining('did you mean "retry_after_s"?') },
    ]);
    expect(report.files[1]).toMatchObject({
      file: good,
      valid: true,
      errors: [],
      experiment: { name: 'registry-down', faults: [{ match: { host: '*.${NPM_REGISTRY_DOMAIN}' } }] },
    });
    expect(stdout).not.toContain('registry-domain.test');
  });

  it('colours error and warning only when asked (a terminal without NO_COLOR)', async () => {
    const result = { errors: [{ file: 'f.yaml', line: 2, column: 3, message: 'bad' }], warnings: [{ file: 'f.yaml', line: 4, column: 1, message: 'odd' }] };
    for (const color of [true, false]) {
      const out = capture();
      await runValidate({ files: ['f.yaml'], json: false }, { stdout: out.stream, color, validateFile: async () => result });
      await new Promise((r) => setImmediate(r));
      if (color) expect(out.text()).toContain('f.yaml:2:3: \u001b[31merror\u001b[39m: bad');
      else expect(out.text()).toBe('f.yaml:2:3: error: bad\nf.yaml:4:1: warning: odd\nf.yaml: invalid: 1 error, 1 warning\n');
    }
  });

  it("stops at once when interrupted while a file is still being read, with the signal's exit code", async () => {
    for (const [signal, exitCode] of [
      ['SIGINT', EXIT.interrupted],
      ['SIGTERM', EXIT.terminated],
    ] as const) {
      const controller = new AbortController();
      const out = capture();
      const never = new Promise<never>(() => undefined);
      const running = runValidate(
        { files: ['slow.yaml', 'next.yaml'], json: false },
        { stdout: out.stream, color: false, signal: controller.signal, validateFile: () => never },
      );
      controller.abort(interruptedBy(signal));
      const error = await running.catch((e: unknown) => e);
      expect(describeError(error)).toEqual({ text: expect.stringMatching(/^error\[E_(INTERRUPTED|TERMINATED)\]: /), exitCode });
      expect(out.text()).toBe('');
    }
  });

  it('reads `-` from stdin once, and names it <stdin>', async () => {
    const stdin = new PassThrough();
    const validate = validateFromDisk(
      { env: { NPM_REGISTRY_DOMAIN: 'registry-domain.test' }, cwd: REPO_ROOT, signal: new AbortController().signal },
      () => stdin,
    );
    stdin.end(readFileSync(join(EXAMPLES_DIR, 'credential-revoked.yaml')));
    const [first, second] = await Promise.all([validate('-'), validate('-')]);
    expect(first.errors).toEqual([]);
    expect(second).toEqual(first);
    const broken = new PassThrough();
    broken.end('name: Bad Name\n');
    const result = await validateFromDisk({ env: {}, cwd: REPO_ROOT, signal: new AbortController().signal }, () => broken)('-');
    expect(result.errors).toContainEqual(
      expect.objectContaining({ file: '<stdin>', line: 1, column: 7, message: expect.stringContaining('name: must be lowercase') }),
    );
  });

  it("never prints a placeholder's value, in text or --json, for an invalid or a valid file", async () => {
    const value = 'sk-fake-Qm4vT8pL2xW6nR0bY3cJ7hD5';
    const dir = scratchDir('intutic-validate-');
    const base = readFileSync(join(EXAMPLES_DIR, 'credential-revoked.yaml'), 'utf8');
    writeFileSync(join(dir, 'bad.yaml'), base.replace(/^name: .*$/m, 'name: "${RUN_TAG}"'));
    writeFileSync(join(dir, 'good.yaml'), base.replace(/^description: .*$/m, 'description: "tag ${RUN_TAG}"'));
    const env = { NPM_REGISTRY_DOMAIN: 'registry-domain.test', RUN_TAG: value };
    for (const args of [[], ['--json']]) {
      const { code, stdout, stderr } = await runChaos(['chaos', 'validate', ...args, join(dir, 'bad.yaml'), join(dir, 'good.yaml')], env);
      expect(code).toBe(EXIT.couldNotRun);
      expect(stdout).toContain('${RUN_TAG}');
      expect(stdout + stderr).not.toContain(value);
    }
  });

  it('without a file it is a usage error', async () => {
    const { code, stderr } = await runChaos(['chaos', 'validate']);
    expect(code).toBe(EXIT.usage);
    expect(stderr).toContain("missing required argument 'file'");
  });
});

describe('intutic chaos list', () => {
  it('lists every fault with injector, safety, effect and options, every probe, and the examples path', async () => {
    const { code, stdout } = await runChaos(['chaos', 'list']);
    expect(code).toBe(EXIT.ok);
    for (const fault of FAULTS) {
      expect(stdout).toMatch(new RegExp(`^${fault.id.replace('.', '\\.')}\\n  injected by ${fault.injectedBy.join(', ')}; ${fault.safety}`, 'm'));
      for (const option of fault.optionDocs.filter((o) => !o.name.startsWith('match.'))) expect(stdout).toContain(`    ${option.name} (`);
    }
    expect(stdout).toContain('retry_after_s (integer 0–3600, default 5)');
    for (const probe of PROBES) expect(stdout).toMatch(new RegExp(`^${probe.id}\\b`, 'm'));
    expect(stdout).toContain(`Examples: ${EXAMPLES_DIR}`);
    expect(stdout).toContain('  registry-down.yaml');
  });

  it('fits an 80-column terminal', async () => {
    const { stdout } = await runChaos(['chaos', 'list']);
    // A path cannot be wrapped; every other line must fit.
    const long = stdout.split('\n').filter((l) => [...l].length > 80 && !l.includes(EXAMPLES_DIR));
    expect(long).toEqual([]);
  });

  it('--json gives the same catalog as data, with the absolute examples directory', async () => {
    const { code, stdout } = await runChaos(['chaos', 'list', '--json']);
    expect(code).toBe(EXIT.ok);
    const data = JSON.parse(stdout);
    expect(data.faults.map((f: { id: string }) => f.id)).toEqual(FAULTS.map((f) => f.id));
    expect(data.faults.find((f: { id: string }) => f.id === 'egress.dns_fail')).toMatchObject({
      injected_by: ['proxy'],
      safety: 'fail-safe',
      required_match: 'host',
    });
    expect(data.faults.find((f: { id: string }) => f.id === 'permission.deny_or_delay').options).toContainEqual({
      name: 'delay_s',
      type: 'number 0–600',
      default: '0',
      description: expect.any(String),
    });
    expect(data.probes.map((p: { id: string }) => p.id)).toEqual(PROBES.map((p) => p.id));
    expect(data.examples.dir).toBe(EXAMPLES_DIR);
    expect(data.examples.files).toEqual(expect.arrayContaining(['credential-revoked.yaml', 'poisoned-readme.yaml', 'registry-down.yaml']));
  });

  it('wraps long text with its indent', () => {
    const lines = wrap('word '.repeat(40), '  ', 30);
    expect(lines.every((l) => l.startsWith('  word') && l.length <= 30)).toBe(true);
  });
});

describe('intutic chaos schema', () => {
  it('prints the JSON Schema', async () => {
    const { code, stdout } = await runChaos(['chaos', 'schema']);
    expect(code).toBe(EXIT.ok);
    expect(JSON.parse(stdout).title).toBe('intutic chaos experiment');
  });

  it('--out writes it to a file', async () => {
    const out = join(scratchDir('intutic-schema-'), 'experiment.schema.json');
    const { code, stdout } = await runChaos(['chaos', 'schema', '--out', out]);
    expect(code).toBe(EXIT.ok);
    expect(stdout).toContain(out);
    expect(JSON.parse(readFileSync(out, 'utf8')).properties.faults).toBeDefined();
  });

  it('--out into a missing directory is a clear error, not a stack trace', async () => {
    const { code, stderr } = await runChaos(['chaos', 'schema', '--out', '/nonexistent-dir-for-test/x.json']);
    expect(code).toBe(EXIT.usage);
    expect(stderr).toContain('cannot write the schema to /nonexistent-dir-for-test/x.json: its directory does not exist');
    expect(stderr).not.toContain('    at ');
  });
});
