// Provider keys stay on the host. A repetition's proxy is given, per provider, the stand-in its
// sandbox holds under the key's name and the real key, both through its environment (never argv);
// it puts the real key where the stand-in was on the way upstream and refuses any other key with the
// answer the provider itself would send. A provider with no stand-in keeps the client's key as it
// came, as `intutic start` run on the host does. Key values are never logged nor echoed in an answer.
// Keys ride in headers, and for Gemini also in the query (`?key=`): both places are checked.
import type { OutgoingHttpHeaders } from 'node:http';
import { IntuticError } from '@intutic/errors';
import { PROVIDER_KEY_ENV } from '@intutic/events';
import { keyRefused, type ErrorResponse } from './errors.ts';
import type { Provider } from './routes.ts';

/** The variable each provider's real key is read from; the sandbox's stand-in goes by the same name. */
export { PROVIDER_KEY_ENV };

/** Where the runner puts a key's stand-in for the proxy: INTUTIC_STAND_IN_ANTHROPIC_API_KEY. */
export const standInEnvName = (keyName: string): string => `INTUTIC_STAND_IN_${keyName}`;

export interface KeySwap {
  standIn: string;
  real: string;
}

export type KeySwaps = Partial<Record<Provider, KeySwap>>;

/**
 * Where clients send a key: Anthropic's x-api-key or a bearer token, OpenAI's bearer token or Azure-style
 * api-key, Gemini's x-goog-api-key (or the `key` query parameter, KEY_PARAM). Every one is checked on
 * every provider's calls, so no other key rides along upstream.
 */
const KEY_HEADERS: readonly string[] = ['x-api-key', 'authorization', 'api-key', 'x-goog-api-key'];
const KEY_PARAM = 'key';

/** The swaps `env` asks for: a provider whose stand-in is set needs its real key there too. */
export function keySwapsFromEnv(env: NodeJS.ProcessEnv): KeySwaps {
  const swaps: KeySwaps = {};
  for (const [provider, keyName] of Object.entries(PROVIDER_KEY_ENV) as Array<[Provider, string]>) {
    const standIn = env[standInEnvName(keyName)]?.trim();
    if (!standIn) continue;
    const real = env[keyName]?.trim();
    if (!real) {
      throw new IntuticError('E_USAGE', `${standInEnvName(keyName)} is set but ${keyName} is not: the proxy has no real key to put in the stand-in's place`, {
        hints: [`set ${keyName} in the proxy's environment, or unset ${standInEnvName(keyName)} to forward the client's key as it comes`],
      });
    }
    if (real === standIn)
      throw new IntuticError('E_USAGE', `${standInEnvName(keyName)} holds the real ${keyName}: a stand-in must differ from the key it stands in for`);
    swaps[provider] = { standIn, real };
  }
  return swaps;
}

export type KeyCheck = { ok: true; path: string } | { ok: false; answer: ErrorResponse; problem: string };

/** The key a header offers: a bearer token's token, or the whole value; null when it is not one string. */
function offeredKey(header: string, value: OutgoingHttpHeaders[string]): string | null {
  if (typeof value !== 'string') return null;
  if (header !== 'authorization') return value.trim();
  return /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(value)?.[1] ?? null;
}

/** A query parameter's name and (decoded) value; a value that does not decode is taken as it is. */
function param(pair: string): { name: string; value: string } {
  const at = pair.indexOf('=');
  const decode = (s: string): string => {
    try {
      return decodeURIComponent(s.replace(/\+/g, ' '));
    } catch {
      return s;
    }
  };
  return at === -1 ? { name: decode(pair), value: '' } : { name: decode(pair.slice(0, at)), value: decode(pair.slice(at + 1)) };
}

/** The path's query split in its pairs, as sent (so the others go upstream byte for byte). */
function queryOf(path: string): { base: string; pairs: string[] } {
  const q = path.indexOf('?');
  return q === -1 ? { base: path, pairs: [] } : { base: path.slice(0, q), pairs: path.slice(q + 1).split('&') };
}

function refused(provider: Provider, where: string | null): KeyCheck {
  const keyName = PROVIDER_KEY_ENV[provider];
  const what = where === null ? 'no API key was sent' : `${where} does not hold this sandbox's key`;
  const message =
    `intutic proxy: ${what}. Provider keys stay on the host: the sandbox must use the stand-in it was given in ${keyName}, ` +
    'which this proxy swaps for the real key; any other key is refused.';
  return { ok: false, answer: keyRefused(provider, where !== null, message), problem: where === null ? 'no key sent' : `${where} is not the stand-in` };
}

/**
 * With a stand-in for the call's provider: every key the call carries (headers and the `key` query
 * parameter) must be the stand-in, and at least one must be there; each then gets the real key in
 * place: in `headers`, and in the path returned. Without one, headers and path are left as they came.
 */
export function swapProviderKey(provider: Provider, headers: OutgoingHttpHeaders, path: string, swaps: KeySwaps): KeyCheck {
  const swap = swaps[provider];
  if (!swap) return { ok: true, path };
  const carried = KEY_HEADERS.filter((name) => headers[name] !== undefined);
  const { base, pairs } = queryOf(path);
  const inQuery = pairs.map(param).filter((p) => p.name === KEY_PARAM);
  if (carried.length === 0 && inQuery.length === 0) return refused(provider, null);
  const wrong = carried.find((name) => offeredKey(name, headers[name]) !== swap.standIn);
  if (wrong !== undefined) return refused(provider, `the ${wrong} header`);
  if (inQuery.some((p) => p.value !== swap.standIn)) return refused(provider, `the ${KEY_PARAM} query parameter`);
  for (const name of carried) headers[name] = name === 'authorization' ? `Bearer ${swap.real}` : swap.real;
  if (inQuery.length === 0) return { ok: true, path };
  const swapped = pairs.map((pair) => (param(pair).name === KEY_PARAM ? `${KEY_PARAM}=${encodeURIComponent(swap.real)}` : pair));
  return { ok: true, path: `${base}?${swapped.join('&')}` };
}
