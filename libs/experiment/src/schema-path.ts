// Navigating the file schema along a data path, so a problem found at a path can name what was
// allowed there (the keys for a "did you mean", the fault or probe the object belongs to).
import { z } from 'zod';
import { formatPath, type PathSegment } from './diagnostics.ts';
import { experimentFileSchema } from './file-schema.ts';

export function valueAt(raw: unknown, path: readonly PathSegment[]): unknown {
  let current = raw;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[segment];
  }
  return current;
}

function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  while (current instanceof z.ZodOptional || current instanceof z.ZodDefault || current instanceof z.ZodNullable) {
    current = current.unwrap() as z.ZodType;
  }
  return current;
}

function discriminatorValue(option: z.ZodType): unknown {
  const inner = unwrap(option);
  if (!(inner instanceof z.ZodObject)) return undefined;
  const id = (inner.shape as Record<string, z.ZodType>)['id'];
  return id instanceof z.ZodLiteral ? id.value : undefined;
}

/** The schema that applies at `path` for this raw value, or undefined when none can be told. */
export function schemaAt(raw: unknown, path: readonly PathSegment[]): z.ZodType | undefined {
  let schema: z.ZodType | undefined = experimentFileSchema;
  for (let depth = 0; depth <= path.length && schema; depth++) {
    schema = unwrap(schema);
    if (schema instanceof z.ZodDiscriminatedUnion) {
      const id = valueAt(raw, [...path.slice(0, depth), 'id']);
      schema = (schema.options as z.ZodType[]).find((o) => discriminatorValue(o) === id);
      if (!schema) return undefined;
      schema = unwrap(schema);
    }
    if (depth === path.length) return schema;
    const segment = path[depth]!;
    if (schema instanceof z.ZodObject) schema = (schema.shape as Record<string, z.ZodType>)[String(segment)];
    else if (schema instanceof z.ZodArray) schema = schema.element as z.ZodType;
    else if (schema instanceof z.ZodUnion) {
      schema = (schema.options as z.ZodType[]).map(unwrap).find((o) => o instanceof z.ZodObject && String(segment) in o.shape);
    } else return undefined;
  }
  return schema;
}

/** The keys an object at `path` may have (for a union of objects, any of theirs). */
export function allowedKeysAt(raw: unknown, path: readonly PathSegment[]): string[] {
  const schema = schemaAt(raw, path);
  if (schema instanceof z.ZodObject) return Object.keys(schema.shape);
  if (schema instanceof z.ZodUnion) {
    return (schema.options as z.ZodType[]).map(unwrap).flatMap((o) => (o instanceof z.ZodObject ? Object.keys(o.shape) : []));
  }
  return [];
}

/** "in fault llm.rate_limit", "in probe task_success", "in match of fault …": where an object sits. */
export function describeOwner(raw: unknown, path: readonly PathSegment[]): string {
  const [section, index, sub] = path;
  const id = typeof index === 'number' ? valueAt(raw, [section!, index, 'id']) : undefined;
  const named = typeof id === 'string' ? ` ${id}` : typeof index === 'number' ? ` #${index + 1}` : '';
  if (section === 'faults' && typeof index === 'number') {
    if (path.length === 2) return ` in fault${named}`;
    if (sub === 'match' && path.length === 3) return ` in match of fault${named}`;
  }
  if (section === 'probes' && typeof index === 'number' && path.length === 2) return ` in probe${named}`;
  if (section === 'abort' && typeof index === 'number' && path.length === 2) return ` in abort condition #${index + 1}`;
  if (path.length === 0) return '';
  return ` in ${formatPath(path)}`;
}
