// Build the agent sandbox images from the Dockerfiles beside this file (libs/sandbox/src/agent-image.ts
// does the work): `npx tsx examples/agent-sandbox/build.ts` for Claude Code's, `--codex` and `--gemini`
// for the Codex and Gemini CLI variants too (each on top of Claude Code's); `--verbose` or INTUTIC_VERBOSE=1 prints every build line instead of one line per step.
import { join } from 'node:path';
import { describeError } from '@intutic/errors';
import {
  checkEngine,
  cliVersion,
  ensureAgentImage,
  ensureCodexAgentImage,
  ensureGeminiAgentImage,
  verboseBuildOutput,
  withBuildProgress,
} from '@intutic/sandbox';
import { intuticHome } from '@intutic/workspace';

try {
  const engine = await checkEngine({ env: process.env });
  const wanted = [
    ensureAgentImage,
    ...(process.argv.includes('--codex') ? [ensureCodexAgentImage] : []),
    ...(process.argv.includes('--gemini') ? [ensureGeminiAgentImage] : []),
  ];
  const progress = { sink: process.stderr, logDir: join(intuticHome(), 'logs'), verbose: verboseBuildOutput(process.env, process.argv.includes('--verbose')) };
  for (const ensure of wanted) {
    const tag = await withBuildProgress(progress, (onProgress) => ensure(engine, { version: cliVersion(), onProgress }));
    process.stdout.write(`${tag}\n`);
  }
} catch (error) {
  const { text, exitCode } = describeError(error);
  process.stderr.write(`${text}\n`);
  process.exit(exitCode);
}
