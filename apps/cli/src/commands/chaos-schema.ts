// `intutic chaos schema [--out file]`: the JSON Schema of experiment files, generated from the
// validator's own zod schema, for editors that complete and check YAML against a schema.
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Writable } from 'node:stream';
import type { Command } from 'commander';
import { EXIT, IntuticError } from '@intutic/errors';
import { experimentJsonSchema } from '@intutic/experiment';
import type { Registration } from '../program.ts';

export interface SchemaOptions {
  /** Absolute path to write to; stdout when absent. */
  out?: string;
}

export async function runSchema(options: SchemaOptions, deps: { stdout: Writable }): Promise<number> {
  const text = JSON.stringify(experimentJsonSchema(), null, 2) + '\n';
  if (options.out === undefined) {
    deps.stdout.write(text);
    return EXIT.ok;
  }
  try {
    await writeFile(options.out, text);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'its directory does not exist' : (error as Error).message;
    throw new IntuticError('E_USAGE', `cannot write the schema to ${options.out}: ${reason}`);
  }
  deps.stdout.write(`wrote the experiment JSON Schema to ${options.out}\n`);
  return EXIT.ok;
}

export function registerChaosSchemaCommand(chaos: Command, reg: Registration): void {
  chaos
    .command('schema')
    .description('print the JSON Schema of experiment files (for editor completion and checks)')
    .option('--out <file>', 'write it to this file instead of stdout')
    .addHelpText('after', '\nWith the YAML language server, start an experiment file with:\n  # yaml-language-server: $schema=./experiment.schema.json')
    .action(async (raw: { out?: string }) => {
      const { ctx } = reg;
      reg.setExit(await runSchema({ ...(raw.out !== undefined ? { out: resolve(ctx.cwd, raw.out) } : {}) }, { stdout: ctx.stdout }));
    });
}
