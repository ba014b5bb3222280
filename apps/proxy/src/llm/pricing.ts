// Cost of a model call from the price table (data/prices.json, or a file given with --prices).
// A model the table does not know is charged at the highest price of each kind in the table, so an
// unknown or misspelled model name can never be used to slip under a cost ceiling.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { IntuticError } from '@intutic/errors';
import bundledPrices from '../../data/prices.json' with { type: 'json' };

const priceSchema = z.strictObject({
  input: z.number().nonnegative(),
  output: z.number().nonnegative(),
  cache_write: z.number().nonnegative(),
  cache_read: z.number().nonnegative(),
});
export type Price = z.infer<typeof priceSchema>;

export const priceTableSchema = z.strictObject({
  schema_version: z.literal(1),
  unit: z.string().optional(),
  note: z.string().optional(),
  checked: z.string().optional(),
  models: z.record(z.string().min(1), priceSchema).refine((m) => Object.keys(m).length > 0, 'at least one model is needed'),
});

export interface TokenUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

export interface Cost {
  cost_usd: number;
  priced_as_unknown: boolean;
}

const BOUNDARY = new Set(['-', '@', ':']);

export class PriceTable {
  private readonly models: ReadonlyMap<string, Price>;
  /** The highest price of each kind: what an unknown model pays. */
  readonly ceiling: Price;

  constructor(models: Record<string, Price>) {
    this.models = new Map(Object.entries(models).map(([name, price]) => [name.toLowerCase(), price]));
    const all = [...this.models.values()];
    this.ceiling = {
      input: Math.max(...all.map((p) => p.input)),
      output: Math.max(...all.map((p) => p.output)),
      cache_write: Math.max(...all.map((p) => p.cache_write)),
      cache_read: Math.max(...all.map((p) => p.cache_read)),
    };
  }

  /** The entry a model is priced by: itself, or the longest entry it starts with followed by - @ or :. */
  entryFor(model: string): string | null {
    const name = model.toLowerCase();
    if (this.models.has(name)) return name;
    let best: string | null = null;
    for (const entry of this.models.keys()) {
      if (name.length > entry.length && name.startsWith(entry) && BOUNDARY.has(name[entry.length]!) && (best === null || entry.length > best.length)) {
        best = entry;
      }
    }
    return best;
  }

  cost(model: string, usage: TokenUsage): Cost {
    const entry = this.entryFor(model);
    const price = entry === null ? this.ceiling : this.models.get(entry)!;
    const micro =
      usage.input_tokens * price.input +
      usage.output_tokens * price.output +
      usage.cache_creation_input_tokens * price.cache_write +
      usage.cache_read_input_tokens * price.cache_read;
    // Rounded to a billionth of a dollar so sums in the events file stay readable.
    return { cost_usd: Math.round(micro * 1000) / 1e9, priced_as_unknown: entry === null };
  }
}

export function parsePriceTable(raw: unknown, source: string): PriceTable {
  const parsed = priceTableSchema.safeParse(raw);
  if (!parsed.success) {
    throw new IntuticError('E_CONFIG_INVALID', `the price table ${source} is not valid: ${z.prettifyError(parsed.error)}`, {
      hints: ['see apps/proxy/data/prices.json for the format'],
    });
  }
  return new PriceTable(parsed.data.models);
}

/** The price table from `path`, or the one shipped with the proxy. */
export function loadPriceTable(path?: string): PriceTable {
  if (!path) return parsePriceTable(bundledPrices, 'shipped with the proxy');
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new IntuticError(missing ? 'E_FILE_NOT_FOUND' : 'E_CONFIG_INVALID', `cannot read the price table ${path}: ${(error as Error).message}`);
  }
  return parsePriceTable(raw, path);
}
