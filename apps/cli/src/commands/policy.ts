// `intutic policy test "<cmd>"` decides a call with the local policy and the destructive tier and
// says why (exit code: 0 allow, 10 block, 11 hold, 12 redact); `intutic policy init` writes a
// starter snapshot and an empty bypass list where the gates read them.
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Command } from 'commander';
import { IntuticError } from '@intutic/errors';
import { decideToolCall, loadPolicy, policyPaths, STARTER_BYPASSES, STARTER_SNAPSHOT, type Decision } from '@intutic/governance';
import type { Registration } from '../program.ts';
import type { CliContext } from '../context.ts';

export const POLICY_TEST_EXIT: Record<Decision, number> = { allow: 0, block: 10, hold: 11, redact: 12 };

export interface PolicyTestOptions {
  command: string;
  tool: string;
  /** A JSON tool input; default `{ "command": <command> }`. */
  input?: string;
  json: boolean;
}

export function runPolicyTest(options: PolicyTestOptions, ctx: Pick<CliContext, 'stdout' | 'env' | 'cwd'>): number {
  let input: unknown = { command: options.command };
  if (options.input !== undefined) {
    try {
      input = JSON.parse(options.input);
    } catch (error) {
      throw new IntuticError('E_USAGE', `--input is not JSON: ${(error as Error).message}`);
    }
  }
  const policy = loadPolicy(ctx.env);
  const d = decideToolCall(policy, { tool: options.tool, input, cwd: ctx.cwd, ...(ctx.env.HOME ? { home: ctx.env.HOME } : {}) });
  if (options.json) {
    ctx.stdout.write(JSON.stringify({ ...d, tool: options.tool, snapshot: policy.sources.snapshot, bypasses: policy.sources.bypasses }) + '\n');
  } else {
    const lines = [
      `decision:    ${d.decision}`,
      `rule:        ${d.rule === null ? '(none)' : `${d.rule} (${d.mode})`}`,
      `destructive: ${d.destructive ? 'yes' : 'no'}`,
      `reason:      ${d.reason}`,
      ...(d.bypass ? [`bypass:      ${d.bypass}`] : []),
      ...(d.redactedInput !== undefined ? [`redacted:    ${JSON.stringify(d.redactedInput)}`] : []),
      policy.missing.snapshot
        ? `snapshot:    none at ${policyPaths(ctx.env).snapshot} (only the built-in destructive tier applies; \`intutic policy init\` writes one)`
        : `snapshot:    ${policy.sources.snapshot}`,
    ];
    ctx.stdout.write(lines.join('\n') + '\n');
  }
  return POLICY_TEST_EXIT[d.decision];
}

function writeAtomic(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.intutic-${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

export function runPolicyInit(options: { force: boolean }, ctx: Pick<CliContext, 'stdout' | 'env'>): number {
  const paths = policyPaths(ctx.env);
  if (existsSync(paths.snapshot) && !options.force) {
    throw new IntuticError('E_USAGE', `a policy snapshot already exists at ${paths.snapshot}; it was left as it is`, {
      hints: ['Pass --force to replace it with the starter snapshot.'],
    });
  }
  writeAtomic(paths.snapshot, STARTER_SNAPSHOT);
  ctx.stdout.write(`wrote the starter snapshot to ${paths.snapshot}\n`);
  // The bypass list records approvals: never replaced, only created when missing.
  if (!existsSync(paths.bypasses)) {
    writeAtomic(paths.bypasses, STARTER_BYPASSES);
    ctx.stdout.write(`wrote an empty approved-bypass list to ${paths.bypasses}\n`);
  }
  return 0;
}

export function registerPolicyCommands(program: Command, reg: Registration): void {
  const policy = program.command('policy').description('the local governance policy: the snapshot rules, the built-in destructive tier, approved bypasses');
  policy
    .command('test')
    .description('decide a command (or any tool call) with the local policy and print the decision and the rule; exit 0 allow, 10 block, 11 hold, 12 redact')
    .argument('<command>', 'the shell command to decide')
    .option('--tool <name>', 'the tool making the call', 'Bash')
    .option('--input <json>', 'the full tool input as JSON (default: {"command": <command>})')
    .option('--json', 'print the decision as JSON', false)
    .action((command: string, opts: { tool: string; input?: string; json: boolean }) => {
      reg.setExit(runPolicyTest({ command, tool: opts.tool, json: opts.json, ...(opts.input !== undefined ? { input: opts.input } : {}) }, reg.ctx));
    });
  policy
    .command('init')
    .description('write a starter policy snapshot (and an empty approved-bypass list) where the gates read them')
    .option('--force', 'replace an existing snapshot', false)
    .action((opts: { force: boolean }) => {
      reg.setExit(runPolicyInit({ force: opts.force }, reg.ctx));
    });
}
