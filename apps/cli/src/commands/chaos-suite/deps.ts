// The real deps of `chaos suite`: the suite file and its experiments read with the CLI's
// placeholders, the engine, images and queue exactly as `chaos run` has them, and the history.
import { findSuite, listRuns, type SuiteSnapshot } from '@intutic/history';
import { intuticHome } from '@intutic/workspace';
import type { CliContext } from '../../context.ts';
import { cliPlaceholderResolver } from '../../shared/placeholders.ts';
import { validateSuiteAt } from '../../shared/suite-file.ts';
import { chaosRunDeps } from '../chaos-run/deps.ts';
import type { ChaosSuiteDeps } from './options.ts';

export function chaosSuiteDeps(ctx: CliContext, verbose: boolean | undefined): ChaosSuiteDeps {
  const run = chaosRunDeps(ctx, verbose);
  const home = intuticHome(ctx.env);
  const resolveVariable = cliPlaceholderResolver(ctx);
  return {
    ctx,
    validate: (file) => validateSuiteAt(ctx.cwd, file, resolveVariable),
    checkEngine: run.checkEngine,
    ensureImage: run.ensureImage,
    connect: run.connect,
    startWorker: run.startWorker,
    findSuite: (ref, name) => findEarlierSuite(ref, name, home),
  };
}

/** `latest`: the newest recorded suite of this name; anything else: a suite id or a unique prefix of one. */
async function findEarlierSuite(ref: string, name: string, home: string): Promise<SuiteSnapshot | null> {
  if (ref !== 'latest') return findSuite(ref, { home });
  const newest = (await listRuns({ home })).find((r) => r.suite?.name === name);
  return newest?.suite ? findSuite(newest.suite.id, { home }) : null;
}
