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

/**
 * An image whose entrypoint is another version's reads another env block: it says so in these words
 * (every version's entrypoint has), and the image needs building again FROM this version's sandbox image.
 */
const OTHER_VERSION = 'unexpected environment block header';

/** A sandbox failure's description, or undefined when the exit code is the command's own. */
export function describeEntrypointFailure(exitCode: number, entrypointMessage: string): string | undefined {
  const what = meaning[exitCode];
  if (!what || !entrypointMessage) return undefined;
  const said = entrypointMessage.replace(/^intutic-sandbox: /, '');
  const hint =
    exitCode === ENTRYPOINT_EXIT.envBlock && said.startsWith(OTHER_VERSION)
      ? " (the image's entrypoint is from another version of intutic: build the image again FROM this version's intutic/sandbox)"
      : '';
  return `${what}: ${said}${hint}`;
}
