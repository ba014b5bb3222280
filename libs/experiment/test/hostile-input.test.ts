// Hostile input: what is refused before it is read, what bounds the parse, what a value may be, and
// that a placeholder's value never shows. Before these rules, several of these cases blocked for
// ever (a FIFO, /dev/zero), ran for minutes (many keys), or ended in "internal error" (deep nesting).
import { execFileSync } from 'node:child_process';
import { constants, openSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  formatDiagnostic,
  MAX_EXPERIMENT_BYTES,
  readExperimentStream,
  validateExperimentFile,
  validateExperimentText,
  type ValidationResult,
} from '../src/index.ts';
import { check, experimentText, fakeDeps } from './helpers.ts';
import { scratchDir } from '@intutic/testkit';

const scratch = () => scratchDir('intutic-hostile-');
const codes = (result: ValidationResult) => result.errors.map((e) => e.code);

describe('an input that is not a regular file is refused before anything is read', () => {
  it('a FIFO: refused at once with what to do, and no reader is left on it', async () => {
    const fifo = join(scratch(), 'experiment.yaml');
    execFileSync('mkfifo', [fifo]);
    const result = await validateExperimentFile(fifo, fakeDeps());
    expect(result.refused).toBe('E_NOT_A_FILE');
    expect(result.errors).toEqual([
      {
        file: fifo,
        line: 0,
        column: 0,
        code: 'not-a-file',
        message: expect.stringContaining('is a named pipe (FIFO), not a regular file: nothing was read from it; save the experiment as a YAML file'),
      },
    ]);
    // A writer that does not wait finds no reader: the FIFO was never opened for reading, or is closed.
    expect(() => openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK)).toThrow(expect.objectContaining({ code: 'ENXIO' }));
  });

  it.each(['/dev/zero', '/dev/null', '/dev/urandom'])('a character device (%s)', async (device) => {
    const result = await validateExperimentFile(device, fakeDeps());
    expect(result.refused).toBe('E_NOT_A_FILE');
    expect(result.errors).toEqual([
      expect.objectContaining({ code: 'not-a-file', message: expect.stringContaining('is a character device, not a regular file') }),
    ]);
  });

  it('a directory', async () => {
    const result = await validateExperimentFile(scratch(), fakeDeps());
    expect(result.refused).toBe('E_NOT_A_FILE');
    expect(result.errors[0]!.message).toMatch(/^is a directory, not an experiment file: pass the YAML files in it/);
  });

  it('a symlink to a regular file is read as that file', async () => {
    const dir = scratch();
    writeFileSync(join(dir, 'real.yaml'), experimentText());
    symlinkSync(join(dir, 'real.yaml'), join(dir, 'link.yaml'));
    const result = await validateExperimentFile(join(dir, 'link.yaml'), fakeDeps());
    expect(result.errors).toEqual([]);
    expect(result.refused).toBeUndefined();
  });
});

describe('the size limit (1 MiB)', () => {
  it('a file over the limit is refused from its size, naming the limit, however large it is', async () => {
    const dir = scratch();
    const huge = join(dir, 'huge.yaml');
    writeFileSync(huge, '');
    truncateSync(huge, 64 * 1024 ** 3); // sparse: 64 GiB that take no disk
    const result = await validateExperimentFile(huge, fakeDeps());
    rmSync(dir, { recursive: true });
    expect(result.refused).toBe('E_FILE_TOO_LARGE');
    expect(result.errors).toEqual([
      expect.objectContaining({
        line: 0,
        code: 'file-too-large',
        message: expect.stringMatching(/^is 64 GiB, over the 1 MiB \(1048576 bytes\) limit for an experiment file: nothing was read/),
      }),
    ]);
  });

  it('one byte over is refused; a valid experiment of exactly the limit is read', async () => {
    const dir = scratch();
    const body = experimentText();
    const padded = (bytes: number) => body + '# ' + 'x'.repeat(bytes - Buffer.byteLength(body) - 3) + '\n';
    writeFileSync(join(dir, 'over.yaml'), padded(MAX_EXPERIMENT_BYTES + 1));
    writeFileSync(join(dir, 'at.yaml'), padded(MAX_EXPERIMENT_BYTES));
    expect((await validateExperimentFile(join(dir, 'over.yaml'), fakeDeps())).refused).toBe('E_FILE_TOO_LARGE');
    const at = await validateExperimentFile(join(dir, 'at.yaml'), fakeDeps());
    expect(at.errors).toEqual([]);
    expect(at.experiment?.name).toBe('base-case');
  });

  it('a stream that never ends is read only to the limit', async () => {
    let pulled = 0;
    const endless = new Readable({
      read() {
        pulled += 64 * 1024;
        this.push(Buffer.alloc(64 * 1024, 0x20));
      },
    });
    const input = await readExperimentStream(endless, '<stdin>');
    expect(input).toEqual({
      refused: 'E_FILE_TOO_LARGE',
      error: expect.objectContaining({
        file: '<stdin>',
        code: 'file-too-large',
        message: expect.stringContaining('larger than the 1 MiB (1048576 bytes) limit'),
      }),
    });
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    expect(pulled).toBeLessThan(MAX_EXPERIMENT_BYTES + 4 * 64 * 1024);
  });

  it('a stream within the limit is its text', async () => {
    expect(await readExperimentStream(Readable.from([Buffer.from('name: a\n'), Buffer.from('agent: b\n')]), '<stdin>')).toEqual({
      text: 'name: a\nagent: b\n',
    });
  });
});

describe('nesting: a located error, never an internal one', () => {
  // The root mapping (or list) is level 1, so the 65th level is the 64th bracket after `a: `.
  it.each([
    ['3000 flow lists', 'a: ' + '['.repeat(3000) + '\n', 1, 3 + 64],
    ['3000 flow mappings', 'a: ' + '{a: '.repeat(3000) + '\n', 1, 3 + 63 * 4 + 1],
    ['3000 block lists', '- '.repeat(3000) + 'x\n', 1, 64 * 2 + 1],
    ['1000 block mappings', Array.from({ length: 1000 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n') + ' 1\n', 65, 65],
  ])('%s', (_name, text, line, column) => {
    const result = validateExperimentText(text, 'deep.yaml', fakeDeps());
    expect(result.errors).toEqual([
      { file: 'deep.yaml', line, column, code: 'too-deep', message: expect.stringContaining('nested deeper than 64 levels of mappings and lists') },
    ]);
  });

  it('64 levels are allowed', () => {
    const result = check(experimentText({ extra: 'description_x: ' + '['.repeat(63) + ']'.repeat(63) }));
    expect(codes(result)).toEqual(['unknown-key']);
  });

  it('aliases that nest the data deeper are located at the alias that goes too deep', () => {
    const chain = ['x0: &a0 [1]', ...Array.from({ length: 80 }, (_, i) => `x${i + 1}: &a${i + 1} [*a${i}]`)].join('\n');
    const result = check(chain);
    expect(result.errors[0]).toMatchObject({
      code: 'too-deep',
      line: 64,
      column: 12,
      message: 'alias *a62 nests the data deeper than 64 levels of mappings and lists',
    });
  });

  it('more than 100 aliases are refused, at the 101st', () => {
    const text = ['a: &a 1', ...Array.from({ length: 150 }, (_, i) => `k${i}: *a`)].join('\n');
    expect(check(text).errors).toEqual([expect.objectContaining({ code: 'too-many-aliases', line: 102, column: 7 })]);
  });
});

describe('size in tokens: the parse stays short whatever the megabyte holds', () => {
  it('100,000 keys are refused where the token limit is passed, before the file is parsed', () => {
    const text = Array.from({ length: 100_000 }, (_, i) => `k${i}: 1`).join('\n');
    const result = check(text);
    expect(result.errors).toEqual([expect.objectContaining({ code: 'too-many-tokens', message: expect.stringContaining('more than 20000 YAML tokens') })]);
    expect(result.errors[0]!.line).toBeGreaterThan(1000);
  });

  it('a long text in few tokens is fine: a description of most of a megabyte', () => {
    const result = check(experimentText().replace('description: a valid experiment', `description: ${'word '.repeat(180_000)}`));
    expect(result.errors).toEqual([]);
  });

  it('a thousand errors and more are listed up to 100, with one line counting the rest', () => {
    const text = Array.from({ length: 2000 }, () => 'k: 1').join('\n');
    const result = check(text);
    expect(result.errors).toHaveLength(101);
    expect(result.errors.slice(0, 100).every((e) => e.message === 'YAML syntax: Map keys must be unique')).toBe(true);
    expect(result.errors[100]).toMatchObject({
      line: 102,
      column: 1,
      code: 'too-many-errors',
      message: '1899 more errors not shown (100 at most per file): fix the ones above first',
    });
  });
});

describe('value bounds, located at the field', () => {
  it.each([
    ['cost_usd_above at 10000', { abort: '  - cost_usd_above: 10000' }, []],
    [
      'cost_usd_above over 10000',
      { abort: '  - cost_usd_above: 10000.5' },
      [{ line: 13, column: 21, message: 'abort[0].cost_usd_above: must be at most 10000 (got 10000.5)' }],
    ],
    [
      'wall_clock_s_above over a day',
      { abort: '  - cost_usd_above: 2\n  - wall_clock_s_above: 86401' },
      [{ line: 14, column: 25, message: 'abort[1].wall_clock_s_above: must be at most 86400 (got 86401)' }],
    ],
    ['a weight of 100', { probes: '  - { id: task_success, weight: 100 }\n  - { id: failure_surfaced, weight: 1 }' }, []],
    [
      'a weight over 100',
      { probes: '  - { id: task_success, weight: 2 }\n  - { id: failure_surfaced, weight: 100.5 }' },
      [{ line: 11, column: 37, message: 'probes[1].weight: must be at most 100 (got 100.5)' }],
    ],
  ])('%s', (_name, parts, expected) => {
    const result = check(experimentText(parts));
    expect(result.errors.map(({ line, column, message }) => ({ line, column, message }))).toEqual(expected);
  });
});

describe('sandbox_image is an image reference', () => {
  const withImage = (image: string) => check(experimentText({ extra: `sandbox_image: ${JSON.stringify(image)}` }));
  it.each([
    'ubuntu',
    'intutic/sandbox:0.1.0-node',
    'my-agent-sandbox',
    'registry.example.org/team/agent_sandbox:v1.2',
    'localhost:5000/agent:latest',
    'Registry.Example.org:443/agent',
    '[::1]:5000/agent',
    `agent@sha256:${'a'.repeat(64)}`,
    `ghcr.io/org/agent:1.0@sha256:${'0'.repeat(64)}`,
  ])('accepts %s', (image) => {
    const result = withImage(image);
    expect(result.errors).toEqual([]);
    expect(result.experiment?.sandbox_image).toBe(image);
  });

  it.each([
    ['uppercase in the path', 'Intutic/Sandbox'],
    ['a space', 'intutic sandbox'],
    ['an empty tag', 'intutic/sandbox:'],
    ['no name', ':latest'],
    ['a short digest', 'agent@sha256:abc'],
    ['a trailing slash', 'agent/'],
    ['an empty path component', 'team//agent'],
    ['a leading dash', '-agent'],
    ['a scheme', 'https://registry.example.org/agent'],
    ['a tag over 128 characters', `agent:${'t'.repeat(129)}`],
  ])('rejects %s, located at the value', (_name, image) => {
    expect(withImage(image).errors).toEqual([
      expect.objectContaining({
        line: 16,
        column: 16,
        code: 'invalid-format',
        message: expect.stringContaining('sandbox_image: must be an image reference, [registry[:port]/]name[:tag][@digest]'),
      }),
    ]);
  });

  it('rejects a name over 255 characters, and a reference too long to be one', () => {
    expect(withImage(`a/${'b'.repeat(260)}`).errors[0]!.message).toContain('the image name (registry and path) must be at most 255 characters');
    expect(withImage('a'.repeat(600)).errors[0]!.message).toContain('sandbox_image: must be at most 512 characters long');
  });
});

describe('blank commands and NUL characters', () => {
  it.each([
    ['agent', 'agent: " \\t "', 3, 8],
    ['verify', 'verify: "  "', 4, 9],
  ])('a blank %s is an error at its value', (key, line, atLine, atColumn) => {
    const text = experimentText().replace(new RegExp(`^${key}: .*$`, 'm'), line);
    expect(check(text).errors).toEqual([
      expect.objectContaining({ line: atLine, column: atColumn, code: 'invalid-format', message: expect.stringContaining(`${key}: must not be only blanks`) }),
    ]);
  });

  it('a command with blanks around it is fine', () => {
    expect(check(experimentText().replace('verify: npm test', 'verify: "  npm test  "')).errors).toEqual([]);
  });

  it.each([
    ['in a top-level value', experimentText().replace('description: a valid experiment', 'description: "a\\0b"'), 2, 14, 'value'],
    ['in a fault option', experimentText({ faults: '  - id: tool.error\n    match: { tool: Bash }\n    message: "x\\x00y"' }), 9, 14, 'value'],
    ['in a list item', experimentText({ faults: '  - id: mcp.toolset_change\n    match: { tool: read_file }\n    remove: ["a", "b\\u0000"]' }), 9, 19, 'value'],
    ['in a key', experimentText({ extra: '"bad\\0key": 1' }), 16, 1, 'key'],
  ])('an escaped NUL %s is an error at that string', (_name, text, line, column, what) => {
    expect(check(text).errors).toEqual([
      expect.objectContaining({ line, column, code: 'nul-character', message: expect.stringContaining(`this ${what} holds a NUL character`) }),
    ]);
  });

  it('a raw NUL byte in the file is an error at its line and column', async () => {
    const path = join(scratch(), 'nul.yaml');
    writeFileSync(path, experimentText().replace('npm test', 'npm\u0000test'));
    const result = await validateExperimentFile(path, fakeDeps());
    expect(result.errors).toEqual([{ file: path, line: 4, column: 12, code: 'nul-character', message: expect.stringContaining('a NUL character') }]);
  });

  it('control characters a message quotes are printed escaped, on one line', () => {
    const text = experimentText({
      faults: '  - id: egress.dns_fail\n    match: { host: "evil\\e[2J/x\\nnext" }',
      probes: '  - { id: failure_surfaced, weight: 1 }',
    });
    const warning = check(text).warnings.find((w) => w.message.includes('compared with host names only'))!;
    const line = formatDiagnostic(warning, 'warning');
    expect(line).toContain('evil\\u001b[2J/x\\u000anext');
    expect(line).not.toMatch(/[\u0000-\u001f]/);
  });
});

describe("a placeholder's value never shows, whatever its variable is called", () => {
  // A value shaped like a provider key, under a name that does not look secret.
  const VALUE = 'sk-fake-2F9c41D7e8b3A65015cb9D7e';
  const vars = { BUILD_LABEL: VALUE };
  const shown = (result: ValidationResult) => JSON.stringify({ errors: result.errors, warnings: result.warnings, printable: result.printable });

  it('not in an error about the value (the name is shown instead)', () => {
    const result = check(experimentText().replace('name: base-case', 'name: "${BUILD_LABEL}"'), vars);
    expect(result.errors).toEqual([expect.objectContaining({ line: 1, column: 7, message: expect.stringContaining('(got "${BUILD_LABEL}")') })]);
    expect(shown(result)).not.toContain(VALUE);
  });

  it('not even in part, where a long value is shortened in a message', () => {
    const long = `${VALUE.toUpperCase()}-${'Z'.repeat(80)}`;
    const result = check(experimentText({ extra: 'sandbox_image: "${BUILD_LABEL}"' }), { BUILD_LABEL: long });
    expect(result.errors[0]!.message).toContain('(got "${BUILD_LABEL}")');
    expect(shown(result)).not.toContain(long.slice(0, 12));
  });

  it('not in a warning that quotes the value, nor where the value is part of a longer string', () => {
    const text = experimentText({
      faults: '  - id: egress.dns_fail\n    match: { host: "x.${BUILD_LABEL}/path" }',
      probes: '  - { id: failure_surfaced, weight: 1 }',
    });
    const result = check(text, vars);
    expect(result.warnings.map((w) => w.message)).toContainEqual(
      expect.stringContaining('match.host "x.${BUILD_LABEL}/path" is compared with host names only'),
    );
    expect(shown(result)).not.toContain(VALUE);
  });

  it('not in the printable experiment of a valid file, which the plan still gets the value in', () => {
    const text = experimentText({ faults: '  - id: tool.error\n    match: { tool: Bash }\n    message: "token ${BUILD_LABEL} revoked"\n    times: 1' });
    const result = check(text, vars);
    expect(result.errors).toEqual([]);
    expect(result.experiment?.faults[0]?.options['message']).toBe(`token ${VALUE} revoked`);
    expect(result.printable?.faults[0]?.options['message']).toBe('token ${BUILD_LABEL} revoked');
    expect(shown(result)).not.toContain(VALUE);
  });

  it('a short value is shown by name where its whole field is quoted, and ordinary text is left alone', () => {
    const result = check(experimentText().replace('name: base-case', 'name: "${N}"').replace('repeat: 2', 'repeat: 25'), { N: 'Ab' });
    expect(result.errors.map((e) => e.message)).toEqual([expect.stringContaining('(got "${N}")'), 'repeat: must be at most 20 (got 25)']);
  });
});
