// The JSON Schema of the experiment file, generated from the file's zod schema so editors (e.g. the
// YAML language server) can complete and check experiment files. What zod cannot say as a type
// (a mandatory cost_usd_above among the abort items) is added here.
import { z } from 'zod';
import { experimentFileSchema } from './file-schema.ts';

export const EXPERIMENT_SCHEMA_ID = 'https://intutic.dev/schemas/chaos-experiment.json';

export function experimentJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(experimentFileSchema, { io: 'input', target: 'draft-2020-12' }) as Record<string, unknown>;
  const properties = schema['properties'] as Record<string, Record<string, unknown>>;
  const abort = properties['abort'];
  if (abort) {
    abort['contains'] = { type: 'object', properties: { cost_usd_above: { type: 'number' } }, required: ['cost_usd_above'] };
  }
  return { $schema: schema['$schema'], $id: EXPERIMENT_SCHEMA_ID, ...schema };
}
