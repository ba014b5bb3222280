// The framed block that carries env values into the sandbox over the container's stdin, so that they
// never appear in the container config (Docker keeps Env on disk), a log or a command line. The
// entrypoint (images/entrypoint.sh) reads it back; keep the two in step.
import { IntuticError } from '@intutic/errors';

export const ENV_BLOCK_HEADER = 'INTUTIC-ENV-1';
export const ENV_BLOCK_END = 'INTUTIC-ENV-END';
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface EnvBlock {
  block: Buffer;
  /** Names whose values were sent. */
  passed: string[];
  /** Names asked for that the environment does not set (not sent). */
  missing: string[];
}

/** Encode the named variables' current values; names are validated, values are base64 on one line. */
export function encodeEnvBlock(names: readonly string[], env: NodeJS.ProcessEnv): EnvBlock {
  const lines = [ENV_BLOCK_HEADER];
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
    lines.push(`${name} ${Buffer.from(value, 'utf8').toString('base64')}`);
    passed.push(name);
  }
  lines.push(ENV_BLOCK_END, '');
  return { block: Buffer.from(lines.join('\n'), 'utf8'), passed, missing };
}
