// Provider keys stay on the host. A repetition's proxy is given, per provider, the stand-in its
// sandbox holds under the key's name and the real key, both through its environment (never argv);
// it puts the real key where the stand-in was on the way upstream and refuses any other key with the
// 401 the provider itself would send. A provider with no stand-in keeps the client's key as it came,
// as `intutic start` run on the host does. Key values are never logged nor echoed in an answer.
import type { OutgoingHttpHeaders } from 'node:http';
import { IntuticError } from '@intutic/errors';
import { providerError, type ErrorResponse } from './errors.ts';
import type { Provider } from './routes.ts';

/** The variable each provider's real key is read from; the sandbox's stand-in goes by the same name. */
export const PROVIDER_KEY_ENV: Readonly<Record<Provider, string>> = { anthropic: 'ANTHROPIC_API_KEY', openai: 'OPENAI_API_KEY' };

/** Where the runner puts a key's stand-in for the proxy: INTUTIC_STAND_IN_ANTHROPIC_API_KEY. */
export const standInEnvName = (keyName: string): string => `INTUTIC_STAND_IN_${keyName}`;

export interface KeySwap {
  standIn: string;
  real: string;
}

export type KeySwaps = Partial<Record<Provider, KeySwap>>;

/**
 * Where clients send a key: Anthropic's x-api-key or a bearer token, OpenAI's bearer token or Azure-style
 * api-key. Every one is checked on either provider's calls, so no other key rides along upstream.
 */
const KEY_HEADERS: readonly string[] = ['x-api-key', 'authorization', 'api-key'];

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

export type KeyCheck = { ok: true } | { ok: false; answer: ErrorResponse; problem: string };

/** The key a header offers: a bearer token's token, or the whole value; null when it is not one string. */
function offeredKey(header: string, value: OutgoingHttpHeaders[string]): string | null {
  if (typeof value !== 'string') return null;
  if (header !== 'authorization') return value.trim();
  return /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(value)?.[1] ?? null;
}

function refused(provider: Provider, header: string | null): KeyCheck {
  const keyName = PROVIDER_KEY_ENV[provider];
  const what = header === null ? 'no API key was sent' : `the ${header} header does not hold this sandbox's key`;
  const message =
    `intutic proxy: ${what}. Provider keys stay on the host: the sandbox must use the stand-in it was given in ${keyName}, ` +
    'which this proxy swaps for the real key; any other key is refused.';
  return { ok: false, answer: providerError(provider, 401, message), problem: header === null ? 'no key sent' : `${header} is not the stand-in` };
}

/**
 * With a stand-in for the call's provider: every key header the call carries must hold the stand-in
 * (and at least one must), and each then gets the real key in place, in `headers`. Without one, the
 * headers are left as they came.
 */
export function swapProviderKey(provider: Provider, headers: OutgoingHttpHeaders, swaps: KeySwaps): KeyCheck {
  const swap = swaps[provider];
  if (!swap) return { ok: true };
  const carried = KEY_HEADERS.filter((name) => headers[name] !== undefined);
  if (carried.length === 0) return refused(provider, null);
  const wrong = carried.find((name) => offeredKey(name, headers[name]) !== swap.standIn);
  if (wrong !== undefined) return refused(provider, wrong);
  for (const name of carried) headers[name] = name === 'authorization' ? `Bearer ${swap.real}` : swap.real;
  return { ok: true };
}
