import { readFileSync } from 'node:fs';

declare const __INTUTIC_VERSION__: string | undefined;

/** The CLI's version; it also tags the sandbox images (`intutic/sandbox:<version>`). */
export const VERSION: string =
  typeof __INTUTIC_VERSION__ === 'string'
    ? __INTUTIC_VERSION__
    : (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
