// Random mutations of the shipped examples: validation never throws, never blames the user for a bug
// of ours (code "internal"), always locates what it reports inside the file, and the validate
// command never prints a stack trace. Each run tries the fixed regression seed and a fresh seed; the
// fresh one is printed, and a failure prints the one command that replays it.
import { randomInt } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { parse, stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { validateExperimentText, type ValidationResult } from '@intutic/experiment';
import { runValidate } from '../src/commands/chaos-validate.ts';
import { EXAMPLES_DIR, fakeDeps } from '@intutic/experiment/testing';

/** The cases every run tries, so what passed once keeps passing (CI runs more of them: FUZZ_RUNS). */
const REGRESSION_SEED = 20_240_611;
const RUNS = Number(process.env['FUZZ_RUNS'] ?? 300);
/** A budget, not a measurement: a case takes a few ms, up to ~10 on a loaded 2-core machine; 30 ms each leaves room. */
const BUDGET_MS = Math.max(30_000, RUNS * 30);
const FRESH_SEED = freshSeed(process.env['INTUTIC_FUZZ_SEED']);
const REPLAY = `INTUTIC_FUZZ_SEED=${FRESH_SEED}${process.env['FUZZ_RUNS'] ? ` FUZZ_RUNS=${RUNS}` : ''} npx vitest run apps/cli/test/fuzz.test.ts`;
process.stderr.write(`[fuzz] fresh seed ${FRESH_SEED}, ${RUNS} cases per property (replay: ${REPLAY})\n`);

function freshSeed(given: string | undefined): number {
  if (given === undefined || given === '') return randomInt(2 ** 31 - 1);
  if (!/^\d+$/.test(given) || Number(given) >= 2 ** 31) throw new Error(`INTUTIC_FUZZ_SEED must be an integer from 0 to 2^31-1, not ${JSON.stringify(given)}`);
  return Number(given);
}

const examples = readdirSync(EXAMPLES_DIR)
  .filter((f) => f.endsWith('.yaml'))
  .sort()
  .map((f) => readFileSync(join(EXAMPLES_DIR, f), 'utf8'));

const yamlChars = fc.constantFrom(...': -{}[]"\'#&*!|>%@,?\t\n\\\u00a0é0123456789abcxyz_.$'.split(''));

/** One edit of the text: insert, delete, duplicate or swap lines, re-indent, truncate. */
const textEdit = fc.oneof(
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), text: fc.string({ unit: yamlChars, maxLength: 6 }) }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 12 }) }),
  fc.record({ kind: fc.constant('duplicate-line' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('swap-lines' as const), at: fc.nat(), other: fc.nat() }),
  fc.record({ kind: fc.constant('indent' as const), at: fc.nat(), by: fc.integer({ min: -4, max: 4 }) }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
);
type TextEdit = typeof textEdit extends fc.Arbitrary<infer T> ? T : never;

function applyTextEdit(text: string, edit: TextEdit): string {
  const lines = text.split('\n');
  const line = edit.at % lines.length;
  switch (edit.kind) {
    case 'insert': {
      const at = edit.at % (text.length + 1);
      return text.slice(0, at) + edit.text + text.slice(at);
    }
    case 'delete': {
      const at = edit.at % (text.length + 1);
      return text.slice(0, at) + text.slice(at + edit.length);
    }
    case 'duplicate-line':
      lines.splice(line, 0, lines[line]!);
      return lines.join('\n');
    case 'swap-lines': {
      const other = edit.other % lines.length;
      [lines[line], lines[other]] = [lines[other]!, lines[line]!];
      return lines.join('\n');
    }
    case 'indent':
      lines[line] = edit.by >= 0 ? ' '.repeat(edit.by) + lines[line] : lines[line]!.slice(-edit.by);
      return lines.join('\n');
    case 'truncate':
      return text.slice(0, edit.at % (text.length + 1));
  }
}

/** One edit of the data: replace a value anywhere with anything, delete a key, or add a key. */
const dataEdit = fc.record({
  pick: fc.nat(),
  kind: fc.constantFrom('replace', 'delete', 'add'),
  value: fc.jsonValue({ maxDepth: 2 }),
  key: fc.string({ maxLength: 12 }),
});
type DataEdit = typeof dataEdit extends fc.Arbitrary<infer T> ? T : never;

function containers(value: unknown, out: object[] = []): object[] {
  if (value && typeof value === 'object') {
    out.push(value);
    for (const child of Object.values(value)) containers(child, out);
  }
  return out;
}

function applyDataEdit(data: unknown, edit: DataEdit): unknown {
  const all = containers(data);
  const target = all[edit.pick % all.length] as Record<string, unknown>;
  const keys = Object.keys(target);
  const key = keys.length > 0 ? keys[edit.pick % keys.length]! : edit.key;
  // Setting an array's length to a non-length throws here, in the fuzzer; YAML has no such key anyway.
  if (Array.isArray(target) && (key === 'length' || edit.key === 'length')) return data;
  if (edit.kind === 'replace') target[key] = edit.value;
  else if (edit.kind === 'delete') delete target[key];
  else target[edit.key] = edit.value;
  return data;
}

function assertWellBehaved(text: string, result: ValidationResult): void {
  const lineCount = text.split('\n').length;
  expect(result.errors.filter((e) => e.code === 'internal')).toEqual([]);
  expect(result.experiment === undefined).toBe(result.errors.length > 0);
  for (const d of [...result.errors, ...result.warnings]) {
    expect(d.line).toBeGreaterThanOrEqual(1);
    expect(d.line).toBeLessThanOrEqual(lineCount + 1);
    expect(d.column).toBeGreaterThanOrEqual(1);
    expect(d.message.length).toBeGreaterThan(0);
    expect(d.message).not.toContain('    at ');
  }
}

async function printed(result: ValidationResult): Promise<string> {
  const stdout = new PassThrough();
  let text = '';
  stdout.on('data', (c: Buffer) => (text += c.toString()));
  await runValidate({ files: ['fuzzed.yaml'], json: false }, { stdout, color: false, validateFile: async () => result });
  return text;
}

const textMutations = fc.asyncProperty(fc.nat(), fc.array(textEdit, { minLength: 1, maxLength: 4 }), async (which, edits) => {
  const text = edits.reduce(applyTextEdit, examples[which % examples.length]!);
  const result = validateExperimentText(text, 'fuzzed.yaml', fakeDeps());
  assertWellBehaved(text, result);
  expect(await printed(result)).not.toContain('    at ');
});

const dataMutations = fc.asyncProperty(fc.nat(), fc.array(dataEdit, { minLength: 1, maxLength: 3 }), async (which, edits) => {
  const data = edits.reduce(applyDataEdit, parse(examples[which % examples.length]!) as unknown);
  const text = stringify(data);
  const result = validateExperimentText(text, 'fuzzed.yaml', fakeDeps());
  assertWellBehaved(text, result);
  expect(await printed(result)).not.toContain('    at ');
});

/** The regression set, then a fresh seed whose failure report starts with the command that replays it. */
function fuzzSuite<Ts extends [unknown, ...unknown[]]>(name: string, property: fc.IAsyncPropertyWithHooks<Ts>): void {
  describe(`${name} mutations of the examples never throw, never report an internal error, always locate`, () => {
    it(
      `the regression set (seed ${REGRESSION_SEED}, ${RUNS} cases)`,
      async () => {
        await fc.assert(property, { seed: REGRESSION_SEED, numRuns: RUNS });
      },
      BUDGET_MS,
    );

    it(
      `${RUNS} cases from a fresh seed (printed; INTUTIC_FUZZ_SEED replays one)`,
      async () => {
        try {
          await fc.assert(property, { seed: FRESH_SEED, numRuns: RUNS });
        } catch (error) {
          throw new Error(`fuzzing failed with seed ${FRESH_SEED}; replay it with:\n  ${REPLAY}\n\n${(error as Error).message}`, { cause: error });
        }
      },
      BUDGET_MS,
    );
  });
}

fuzzSuite('text', textMutations);
fuzzSuite('data', dataMutations);
