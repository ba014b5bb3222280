// The exit codes the sandbox entrypoint (images/entrypoint.sh) uses for its own failures, which happen
// before the command starts. Kept in one place so callers can tell "the sandbox failed" from "the
// command exited with this code".
export const ENTRYPOINT_EXIT = {
  /** The egress firewall could not be applied: the command was never run (fail closed). */
  firewall: 86,
  /** The env block on stdin was missing or malformed. */
  envBlock: 87,
  /** Workspace, home or trust-store setup failed. */
  setup: 88,
} as const;

const meaning: Record<number, string> = {
  [ENTRYPOINT_EXIT.firewall]: 'the sandbox firewall could not be applied, so the command was not run',
  [ENTRYPOINT_EXIT.envBlock]: 'the sandbox did not receive its environment',
  [ENTRYPOINT_EXIT.setup]: 'the sandbox could not be set up',
};

/** A sandbox failure's description, or undefined when the exit code is the command's own. */
export function describeEntrypointFailure(exitCode: number, entrypointMessage: string): string | undefined {
  const what = meaning[exitCode];
  if (!what || !entrypointMessage) return undefined;
  return `${what}: ${entrypointMessage.replace(/^intutic-sandbox: /, '')}`;
}
