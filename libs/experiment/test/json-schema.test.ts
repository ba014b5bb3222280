// The JSON Schema `intutic chaos schema` prints: generated from the validator's zod schema, with
// descriptions for editor completion, and strict enough that a real JSON Schema validator rejects
// what the validator rejects where a schema can say it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { FAULTS } from '@intutic/faults';
import { experimentJsonSchema } from '../src/index.ts';
import { CORPUS_DIR } from './helpers.ts';

const schema = experimentJsonSchema();
const validate = new Ajv2020({ allErrors: true, strict: true }).compile(schema);

describe('the experiment JSON Schema', () => {
  it('is a draft 2020-12 schema with an id and a title', () => {
    expect(schema['$schema']).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema['$id']).toMatch(/^https:\/\//);
    expect(schema['title']).toBe('intutic chaos experiment');
  });

  it('describes every top-level key, and offers one fault shape per catalog fault with its own options', () => {
    const properties = schema['properties'] as Record<
      string,
      { description?: string; items?: { oneOf?: { title?: string; properties: Record<string, { description?: string }> }[] } }
    >;
    for (const [key, property] of Object.entries(properties)) expect(property.description, key).toBeTruthy();
    const variants = properties['faults']!.items!.oneOf!;
    expect(variants.map((v) => v.title)).toEqual(FAULTS.map((f) => f.id));
    const rateLimit = variants.find((v) => v.title === 'llm.rate_limit')!;
    expect(rateLimit.properties['retry_after_s']?.description).toContain('Retry-After');
  });

  it.each([
    ['unknown-option-typo.yaml', 'an unknown option'],
    ['misspelled-fault-id.yaml', 'an unknown fault id'],
    ['repeat-too-big.yaml', 'repeat above 20'],
    ['cost-ceiling-missing.yaml', 'no cost_usd_above among the abort conditions'],
    ['egress-without-match.yaml', 'an egress fault without match.host'],
    ['probe-value-missing.yaml', 'a probe without its value'],
    ['status-not-5xx-option.yaml', 'a status outside 500, 502, 503, 529'],
    ['agent-blank.yaml', 'an agent command of blanks only'],
    ['abort-cost-too-high.yaml', 'cost_usd_above over its bound'],
    ['weight-too-high.yaml', 'a probe weight over its bound'],
    ['sandbox-image-invalid.yaml', 'a sandbox_image that is not an image reference'],
  ])('rejects %s (%s)', (file) => {
    const data = parse(readFileSync(join(CORPUS_DIR, file), 'utf8'));
    expect(validate(data)).toBe(false);
  });
});
