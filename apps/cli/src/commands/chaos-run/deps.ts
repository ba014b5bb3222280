// The real deps of `chaos run`: the experiment file read with the CLI's placeholders, the container
// engine, the sandbox image (built when it is an intutic one), the run queue's Redis, a worker of this
// process's own, and the Ctrl-C question at the terminal.
import { resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { IntuticError } from '@intutic/errors';
import { validateExperimentFile } from '@intutic/experiment';
import { connectRunQueue } from '@intutic/queue';
import { startChaosWorker } from '@intutic/runner';
import { checkEngine, ensureSandboxImage, sandboxVariantOf, withBuildProgress, type Engine } from '@intutic/sandbox';
import { intuticHome } from '@intutic/workspace';
import { imageBuildProgress, type CliContext } from '../../context.ts';
import { repetitionEffects } from '../../runner-deps.ts';
import { cliPlaceholderResolver } from '../../shared/placeholders.ts';
import { agentImageBuilder } from './image-choice.ts';
import type { ChaosRunDeps, ImageStatus } from './options.ts';

/** `verbose`: every line of an image build (--verbose). */
export function chaosRunDeps(ctx: CliContext, verbose: boolean | undefined): ChaosRunDeps {
  const home = intuticHome(ctx.env);
  const resolveVariable = cliPlaceholderResolver(ctx);
  return {
    ctx,
    validate: (f) => validateExperimentFile(resolve(ctx.cwd, f), { resolveVariable }),
    checkEngine: () => checkEngine({ env: ctx.env }),
    ensureImage: (engine, image) => ensureImage(ctx, verbose, engine, image),
    imageStatus: (engine, image) => imageStatus(ctx, engine, image),
    connect: (engine, log) => connectRunQueue({ env: ctx.env, home, engine, log }),
    startWorker: (engine, config, log) =>
      startChaosWorker({ config, engine, home, effects: repetitionEffects(ctx.env, engine), env: ctx.env, version: ctx.version, log }),
    ask: () => askCancelOrLeave(ctx),
    interactive: ctx.isTTY && Boolean(process.stdin.isTTY),
  };
}

const imageExists = (engine: Engine, image: string): Promise<boolean> =>
  engine.docker
    .getImage(image)
    .inspect()
    .then(
      () => true,
      () => false,
    );

/** An intutic image (the sandbox's or a shipped agent's) is built when missing; any other must already exist. */
async function ensureImage(ctx: CliContext, verbose: boolean | undefined, engine: Engine, image: string): Promise<void> {
  const variant = sandboxVariantOf(image, ctx.version);
  if (variant) {
    await withBuildProgress(imageBuildProgress(ctx, verbose), (onProgress) =>
      ensureSandboxImage(engine, { version: ctx.version, variant, env: ctx.env, onProgress }),
    );
    return;
  }
  const buildAgentImage = agentImageBuilder(image, ctx.version);
  if (buildAgentImage) {
    await withBuildProgress(imageBuildProgress(ctx, verbose), (onProgress) => buildAgentImage(engine, { version: ctx.version, env: ctx.env, onProgress }));
    return;
  }
  if (!(await imageExists(engine, image))) {
    throw new IntuticError('E_SANDBOX_FAILED', `the sandbox image ${image} does not exist on ${engine.endpoint}`, {
      hints: [
        `build it FROM intutic/sandbox:${ctx.version}-node (see "Bring your agent"), or pass --sandbox-image intutic/sandbox:${ctx.version}-node to have it built`,
      ],
    });
  }
}

async function imageStatus(ctx: CliContext, engine: Engine, image: string): Promise<ImageStatus> {
  if (await imageExists(engine, image)) return 'present';
  return sandboxVariantOf(image, ctx.version) || agentImageBuilder(image, ctx.version) ? 'would-build' : 'missing';
}

async function askCancelOrLeave(ctx: CliContext): Promise<'cancel' | 'leave'> {
  const rl = createInterface({ input: process.stdin, output: ctx.stderr });
  // A second Ctrl-C at the question means cancel.
  const interrupted = new Promise<'cancel'>((r) => rl.once('SIGINT', () => r('cancel')));
  try {
    for (;;) {
      const answer = await Promise.race([rl.question('\nCancel the run (c) or leave it running in the queue (l)? [c/l] '), interrupted]);
      if (answer === 'cancel' || /^c/i.test(answer.trim())) return 'cancel';
      if (/^l/i.test(answer.trim())) return 'leave';
    }
  } finally {
    rl.close();
  }
}
