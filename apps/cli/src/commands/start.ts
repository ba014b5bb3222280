// `intutic start`: run the governance proxy until SIGINT/SIGTERM. One port serves the model APIs
// (point ANTHROPIC_BASE_URL / OPENAI_BASE_URL / GOOGLE_GEMINI_BASE_URL at it), the egress proxy
// (HTTP(S)_PROXY) and GET /health. Prints one line, `intutic proxy listening on <url>`, once it serves.
import { isAbsolute, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import type { Command } from 'commander';
import { EXIT, IntuticError } from '@intutic/errors';
import { DEFAULT_UPSTREAMS, keySwapsFromEnv, parseHostOverrides, startProxy, type ProxyOptions, type RunningProxy } from '@intutic/proxy-app';
import type { Registration } from '../program.ts';

export interface StartFlags {
  port?: string;
  host: string;
  plan?: string;
  events?: string;
  log?: string;
  upstreamAnthropic: string;
  upstreamOpenai: string;
  upstreamGemini: string;
  prices?: string;
  caOut?: string;
  resolve: string[];
  allowPrivateHost: string[];
}

export interface StartDeps {
  stdout: Writable;
  stderr?: Writable;
  env: NodeJS.ProcessEnv;
  /** Stops the proxy when it fires. */
  signal: AbortSignal;
  start?: (options: ProxyOptions) => Promise<RunningProxy>;
}

function parsePort(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65_535) throw new IntuticError('E_USAGE', `--port must be a number from 0 to 65535, got ${value}`);
  return port;
}

/** Flags to proxy options; relative paths are taken from `cwd`. */
export function startOptions(flags: StartFlags, cwd: string, env: NodeJS.ProcessEnv): ProxyOptions {
  const path = (p: string | undefined): string | undefined => (p === undefined ? undefined : isAbsolute(p) ? p : resolve(cwd, p));
  return {
    host: flags.host,
    port: parsePort(flags.port),
    planPath: path(flags.plan),
    eventsPath: path(flags.events),
    logPath: path(flags.log),
    upstreamAnthropic: flags.upstreamAnthropic,
    upstreamOpenai: flags.upstreamOpenai,
    upstreamGemini: flags.upstreamGemini,
    pricesPath: path(flags.prices),
    caOutPath: path(flags.caOut),
    hostOverrides: parseHostOverrides(flags.resolve),
    allowPrivateHosts: flags.allowPrivateHost,
    env,
    // Only a repetition's runner sets stand-ins (INTUTIC_STAND_IN_<KEY>); run by hand, keys pass as they come.
    keys: keySwapsFromEnv(env),
  };
}

export async function runStart(options: ProxyOptions, deps: StartDeps): Promise<number> {
  const proxy = await (deps.start ?? startProxy)(options);
  // Its log may be a file: a refused mutating fault is said where the person who ran it looks too.
  if (proxy.refusal && options.logPath) deps.stderr?.write(`warning: ${proxy.refusal}\n`);
  deps.stdout.write(`intutic proxy listening on ${proxy.url}\n`);
  await new Promise<void>((done) => {
    if (deps.signal.aborted) done();
    else deps.signal.addEventListener('abort', () => done(), { once: true });
  });
  await proxy.close();
  return EXIT.ok;
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

export function registerStartCommand(program: Command, reg: Registration): void {
  program
    .command('start')
    .description(
      'Run the governance proxy: model API pass-through with cost accounting, the egress proxy for HTTP(S)_PROXY, and the llm.* and egress.* faults of a plan. Stops on Ctrl-C or SIGTERM.',
    )
    .option('--port <port>', 'port to listen on (default: a free port)')
    .option('--host <address>', 'address to bind (never every interface unless you say 0.0.0.0)', '127.0.0.1')
    .option(
      '--plan <file>',
      'the plan whose llm.* and egress.* faults to inject (default: none, a baseline); its mutating faults apply only for a repetition (intutic chaos run), never run by hand',
    )
    .option('--events <file>', 'append events (llm_call, fault_injected, plan_loaded, egress_request) to this JSON Lines file')
    .option('--log <file>', 'write the log here (default: stderr)')
    .option('--upstream-anthropic <url>', 'where Anthropic API calls go', DEFAULT_UPSTREAMS.anthropic)
    .option('--upstream-openai <url>', 'where OpenAI API calls go', DEFAULT_UPSTREAMS.openai)
    .option('--upstream-gemini <url>', 'where Gemini API calls go', DEFAULT_UPSTREAMS.gemini)
    .option('--prices <file>', 'price table to charge model calls by (default: the shipped one)')
    .option('--ca-out <file>', "write the per-run CA certificate (PEM) here, for the sandbox's trust store")
    .option('--resolve <host=addr:port>', 'send connections for host to addr:port (repeatable), like curl --resolve', collect, [])
    .option(
      '--allow-private-host <host>',
      'let egress reach this private host (repeatable): a name (also when it resolves to a private address), *.domain, an address or a CIDR; loopback and metadata only by address (also INTUTIC_ALLOW_PRIVATE_HOSTS)',
      collect,
      [],
    )
    .action(async (flags: StartFlags) => {
      const { ctx } = reg;
      reg.setExit(await runStart(startOptions(flags, ctx.cwd, ctx.env), { stdout: ctx.stdout, stderr: ctx.stderr, env: ctx.env, signal: ctx.signal }));
    });
}
