// `intutic demo`: a real experiment end to end with no API key — engine check, images built on first
// use, the scripted model in place of the provider, a throwaway project, `chaos run` of a shipped
// example with real Claude Code (or Gemini CLI) in the sandbox, the summary, and the command to run it for real.
// The demo is its own script (examples/demo, bundled beside the CLI in this checkout and in the
// package); this command finds it and runs it, as `npm run demo` does in the repository.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { EXIT, IntuticError } from '@intutic/errors';
import type { CliContext } from '../context.ts';
import type { Registration } from '../program.ts';

export const DEMO_EXAMPLES = ['registry-down', 'poisoned-readme'] as const;
export const DEMO_AGENTS = ['claude', 'gemini'] as const;
const DEMO_SCRIPT = join('examples', 'demo', 'dist', 'demo.mjs');

export interface DemoOptions {
  example: (typeof DEMO_EXAMPLES)[number];
  agent: (typeof DEMO_AGENTS)[number];
  careless: boolean;
  keep: boolean;
  verbose: boolean;
  /** The three shipped examples under Claude Code, Codex and Gemini CLI as one suite, careful then careless. */
  suite: boolean;
}

interface RawDemoOptions {
  example: string;
  agent: string;
  careless?: boolean;
  keep?: boolean;
  verbose?: boolean;
  suite?: boolean;
}

export function parseDemoOptions(raw: RawDemoOptions): DemoOptions {
  const example = DEMO_EXAMPLES.find((name) => name === raw.example);
  if (!example) throw new IntuticError('E_USAGE', `there is no demo of "${raw.example}"`, { hints: [`--example takes ${DEMO_EXAMPLES.join(' or ')}`] });
  const agent = DEMO_AGENTS.find((name) => name === raw.agent);
  if (!agent) throw new IntuticError('E_USAGE', `the demo has no agent "${raw.agent}"`, { hints: [`--agent takes ${DEMO_AGENTS.join(' or ')}`] });
  return { example, agent, careless: raw.careless === true, keep: raw.keep === true, verbose: raw.verbose === true, suite: raw.suite === true };
}

/** The demo's bundle: in the first directory above this module that holds examples/demo/dist/demo.mjs. */
export function findDemoScript(moduleUrl: string = import.meta.url): string | undefined {
  for (let dir = dirname(fileURLToPath(moduleUrl)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, DEMO_SCRIPT))) return join(dir, DEMO_SCRIPT);
    if (dirname(dir) === dir) return undefined;
  }
}

export interface DemoDeps {
  ctx: CliContext;
  script: string | undefined;
}

export async function runDemo(options: DemoOptions, deps: DemoDeps): Promise<number> {
  if (!deps.script) {
    throw new IntuticError('E_FILE_NOT_FOUND', `the demo's script (${DEMO_SCRIPT}) is not beside this intutic`, {
      hints: ['in a checkout of intutic, run `npm run build` first; an installed package always has it'],
    });
  }
  const args = [
    '--example',
    options.example,
    '--agent',
    options.agent,
    ...(options.careless ? ['--careless'] : []),
    ...(options.keep ? ['--keep'] : []),
    ...(options.verbose ? ['--verbose'] : []),
    ...(options.suite ? ['--suite'] : []),
  ];
  const child = spawn(process.execPath, [deps.script, ...args], { cwd: deps.ctx.cwd, env: deps.ctx.env, stdio: 'inherit' });
  // Ctrl-C reaches the demo through the terminal's process group (it passes it on to chaos run,
  // which cancels its run); a SIGTERM to this process is passed on the same way.
  const stop = () => child.kill('SIGTERM');
  deps.ctx.signal.addEventListener('abort', stop, { once: true });
  try {
    return await new Promise<number>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (code, signal) => resolve(code ?? (signal === 'SIGINT' ? EXIT.interrupted : 1)));
    });
  } finally {
    deps.ctx.signal.removeEventListener('abort', stop);
  }
}

export function registerDemoCommand(program: Command, reg: Registration): void {
  program
    .command('demo')
    .description(
      'run a real chaos experiment end to end with no API key: real Claude Code (or Gemini CLI) in the sandbox, a scripted model in place of the provider',
    )
    .option('--example <name>', `the shipped example to run: ${DEMO_EXAMPLES.join(' or ')}`, 'registry-down')
    .option('--agent <name>', `the agent in the sandbox: ${DEMO_AGENTS.join(' (Claude Code) or ')} (Gemini CLI)`, 'claude')
    .option('--careless', 'script an agent that claims success anyway, to see a low score')
    .option('--keep', 'keep the throwaway project afterwards')
    .option('--verbose', 'print every line of the image builds, not one line per step')
    .option('--suite', 'run the three shipped examples under Claude Code, Codex and Gemini CLI as one suite (careful, then careless) and print the matrices')
    .action(async (raw: RawDemoOptions) => {
      reg.setExit(await runDemo(parseDemoOptions(raw), { ctx: reg.ctx, script: findDemoScript() }));
    });
}
