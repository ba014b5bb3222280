// The framed block that carries env values into the sandbox over the container's stdin, so that they
// never appear in the container config (Docker keeps Env on disk), a log or a command line. The
// entrypoint (images/entrypoint.sh) reads it back; keep the two in step.
import { IntuticError } from '@intutic/errors';

export const ENV_BLOCK_HEADER = 'INTUTIC-ENV-2';
export const ENV_BLOCK_END = 'INTUTIC-ENV-END';
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface EnvBlock {
  block: Buffer;
  /** Names whose values were sent. */
  passed: string[];
  /** Names asked for that the environment does not set (not sent). */
  missing: string[];
}

const escapeBytes = (value: string): string => Buffer.from(value, 'utf8').toString('hex').replace(/../g, '\\x$&');

/**
 * Encode the named variables' current values; names are validated, and each value is written on one
 * line as \xHH per UTF-8 byte, which the entrypoint turns back with bash's own printf (no process
 * per variable, as base64 would need). The header carries the nonce of the exit trailer (exit-trailer.ts).
 */
export function encodeEnvBlock(names: readonly string[], env: NodeJS.ProcessEnv, trailerNonce: string): EnvBlock {
  if (!/^[0-9a-f]{32}$/.test(trailerNonce)) throw new Error('the exit trailer nonce must be 32 lowercase hex digits');
  const lines = [`${ENV_BLOCK_HEADER} ${trailerNonce}`];
  const passed: string[] = [];
  const missing: string[] = [];
  for (const name of new Set(names)) {
    if (!NAME.test(name)) throw new IntuticError('E_USAGE', `not a valid environment variable name: ${JSON.stringify(name)}`);
    const value = env[name];
    if (value === undefined) {
      missing.push(name);
      continue;
    }
    if (value.includes('\0')) throw new IntuticError('E_USAGE', `the value of ${name} contains a NUL byte, which no environment can hold`);
    lines.push(`${name} ${escapeBytes(value)}`);
    passed.push(name);
  }
  lines.push(ENV_BLOCK_END, '');
  return { block: Buffer.from(lines.join('\n'), 'utf8'), passed, missing };
}
