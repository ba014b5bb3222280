// Which command a worker starts each repetition's proxy with: the user's INTUTIC_CLI_COMMAND, else
// the proxy's own bundle, else the full bin; a bad setting is a usage error that says what to set.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IntuticError } from '@intutic/errors';
import { scratchDir } from '@intutic/testkit';
import { intuticCommand } from '../src/runner-deps.ts';

const dir = scratchDir('intutic-runner-deps-');
const bin = join(dir, 'intutic.mjs');
const bundle = join(dir, 'intutic-proxy.mjs');
const missing = join(dir, 'missing.mjs');
writeFileSync(bin, '');
writeFileSync(bundle, '');

describe('the command a repetition proxy is started with', () => {
  it("is the proxy's own bundle when it is there, else the CLI's bin", () => {
    expect(intuticCommand({}, bin, bundle)).toEqual([process.execPath, bundle]);
    expect(intuticCommand({}, bin, missing)).toEqual([process.execPath, bin]);
  });

  it('is INTUTIC_CLI_COMMAND when it is set, whatever is built', () => {
    expect(intuticCommand({ INTUTIC_CLI_COMMAND: '["node","/opt/intutic.mjs"]' }, bin, bundle)).toEqual(['node', '/opt/intutic.mjs']);
  });

  it('is a usage error that says what to set when nothing can run it', () => {
    for (const env of [{ INTUTIC_CLI_COMMAND: 'node intutic.mjs' }, { INTUTIC_CLI_COMMAND: '[]' }, { INTUTIC_CLI_COMMAND: '[1]' }, {}]) {
      let thrown: unknown;
      try {
        intuticCommand(env, missing, missing);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, JSON.stringify(env)).toBeInstanceOf(IntuticError);
      expect((thrown as IntuticError).code).toBe('E_USAGE');
      expect([(thrown as IntuticError).message, ...(thrown as IntuticError).hints].join(' ')).toContain('INTUTIC_CLI_COMMAND');
    }
  });
});
