// Turning the proxy's inputs into checked values: the plan file, the upstream base URLs, the
// --resolve overrides and the private hosts egress may reach. Each failure is an IntuticError that
// says which input was wrong.
import { readFileSync } from 'node:fs';
import { IntuticError } from '@intutic/errors';
import { planSchema, type Plan } from '@intutic/faults';

export const DEFAULT_UPSTREAMS = {
  anthropic: 'https://api.anthropic.com',
  openai: 'https://api.openai.com',
  gemini: 'https://generativelanguage.googleapis.com',
} as const;

export function loadPlanFile(path: string): Plan {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new IntuticError('E_FILE_NOT_FOUND', `cannot read the plan ${path}: ${(error as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new IntuticError('E_PLAN_INVALID', `the plan ${path} is not JSON: ${(error as Error).message}`);
  }
  const parsed = planSchema.safeParse(raw);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new IntuticError('E_PLAN_INVALID', `the plan ${path} is not valid: ${first?.path.join('.') || '(root)'}: ${first?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

/** An upstream base URL: http or https, no query; a path prefix (a gateway) is kept. */
export function parseUpstream(name: string, value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new IntuticError('E_USAGE', `--upstream-${name} is not a URL: ${value}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new IntuticError('E_USAGE', `--upstream-${name} must be http:// or https://, got ${value}`);
  if (url.search || url.hash) throw new IntuticError('E_USAGE', `--upstream-${name} must not carry a query or fragment: ${value}`);
  return url;
}

export const ALLOW_PRIVATE_HOSTS_ENV = 'INTUTIC_ALLOW_PRIVATE_HOSTS';

/** INTUTIC_ALLOW_PRIVATE_HOSTS: entries like --allow-private-host's, separated by commas or spaces. */
export function privateHostsFromEnv(env: NodeJS.ProcessEnv): string[] {
  return (env[ALLOW_PRIVATE_HOSTS_ENV] ?? '').split(/[\s,]+/).filter(Boolean);
}

/** `host=addr:port` pairs (like curl --resolve, with = instead of the first colon) into a map. */
export function parseHostOverrides(pairs: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0 || at === pair.length - 1) {
      throw new IntuticError('E_USAGE', `--resolve expects host=addr:port, got ${pair}`, { hints: ['e.g. --resolve api.github.test=127.0.0.1:8443'] });
    }
    out[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return out;
}
