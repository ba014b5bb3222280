// One small error hierarchy with stable string codes that scripts can match, each carrying a message
// that says what to do next. The CLI's top level maps codes to exit codes; anything that is not an
// IntuticError is a bug and is reported as one.

/** Exit codes shared by every command. `chaos run` adds its verdict codes (0 scored, 1 aborted, 2 invalid). */
export const EXIT = {
  ok: 0,
  aborted: 1,
  invalid: 2,
  /** Could not run at all: bad experiment file, no engine, dirty tree, no Redis, bad arguments. */
  couldNotRun: 3,
  usage: 64,
  /** The input was refused before anything was read from it: not a regular file, or too large (sysexits EX_NOINPUT). */
  refusedInput: 66,
  bug: 70,
  /** An output file that exists is never overwritten (sysexits EX_CANTCREAT). */
  outputExists: 73,
  /** Ctrl-C (SIGINT): 128 + 2, what a shell reports for a command the signal ended. */
  interrupted: 130,
  /** SIGTERM: 128 + 15. */
  terminated: 143,
} as const;

export type ErrorCode =
  | 'E_USAGE'
  | 'E_EXPERIMENT_INVALID'
  | 'E_FILE_NOT_FOUND'
  | 'E_NOT_A_FILE'
  | 'E_FILE_TOO_LARGE'
  | 'E_FILE_EXISTS'
  | 'E_SANDBOX_UNAVAILABLE'
  | 'E_SANDBOX_FAILED'
  | 'E_IMAGE_BUILD_FAILED'
  | 'E_TREE_DIRTY'
  | 'E_NOT_A_GIT_REPO'
  | 'E_REDIS_UNAVAILABLE'
  | 'E_PROXY_FAILED'
  | 'E_PLAN_INVALID'
  | 'E_POLICY_INVALID'
  | 'E_REPORT_INVALID'
  | 'E_RUN_NOT_FOUND'
  | 'E_CONFIG_INVALID'
  | 'E_NOT_CONNECTED'
  | 'E_CHANGED_SINCE_CONNECT'
  | 'E_MCP_SERVER_FAILED'
  | 'E_MCP_MESSAGE_TOO_LARGE'
  | 'E_HOOK_INPUT_INVALID'
  | 'E_LOCK_TIMEOUT'
  | 'E_DISK_FULL'
  | 'E_UNGOVERNED'
  | 'E_INTERRUPTED'
  | 'E_TERMINATED';

const exitCodeOf: Record<ErrorCode, number> = {
  E_USAGE: EXIT.usage,
  E_EXPERIMENT_INVALID: EXIT.couldNotRun,
  E_FILE_NOT_FOUND: EXIT.couldNotRun,
  /** A FIFO, a device, a socket or a directory where a file is read: refused before it is opened for reading. */
  E_NOT_A_FILE: EXIT.refusedInput,
  /** A file over the size limit of what is read (e.g. 1 MiB for an experiment): refused before it is read. */
  E_FILE_TOO_LARGE: EXIT.refusedInput,
  /** A file a command creates (e.g. `chaos init`'s experiment) is already there: it is left as it is. */
  E_FILE_EXISTS: EXIT.outputExists,
  E_SANDBOX_UNAVAILABLE: EXIT.couldNotRun,
  /** The engine answered but the sandbox container could not be created or started. */
  E_SANDBOX_FAILED: EXIT.couldNotRun,
  E_IMAGE_BUILD_FAILED: EXIT.couldNotRun,
  E_TREE_DIRTY: EXIT.couldNotRun,
  E_NOT_A_GIT_REPO: EXIT.couldNotRun,
  E_REDIS_UNAVAILABLE: EXIT.couldNotRun,
  E_PROXY_FAILED: EXIT.couldNotRun,
  E_PLAN_INVALID: EXIT.couldNotRun,
  E_POLICY_INVALID: EXIT.couldNotRun,
  E_REPORT_INVALID: EXIT.couldNotRun,
  E_RUN_NOT_FOUND: EXIT.couldNotRun,
  E_CONFIG_INVALID: EXIT.couldNotRun,
  /** `intutic disconnect` in a project with no record of `intutic connect`: nothing to undo. */
  E_NOT_CONNECTED: EXIT.couldNotRun,
  /** `intutic disconnect` found a file connect wrote edited since: nothing is undone unless forced. */
  E_CHANGED_SINCE_CONNECT: EXIT.couldNotRun,
  E_MCP_SERVER_FAILED: EXIT.couldNotRun,
  /** An MCP peer (client or server) sent more than the proxy's line limit without a newline: refused unread. */
  E_MCP_MESSAGE_TOO_LARGE: EXIT.refusedInput,
  /** A hook gate got input it cannot decide on (not a JSON object, no tool_name, an event it does not
   * handle, nothing on stdin): the gate refuses the call (fail closed). */
  E_HOOK_INPUT_INVALID: EXIT.couldNotRun,
  /** A lock on shared state (the gates' counters and holds) stayed taken past its timeout. */
  E_LOCK_TIMEOUT: EXIT.couldNotRun,
  /** A write found no space left (ENOSPC, or EDQUOT: the quota); the message names the directory. */
  E_DISK_FULL: EXIT.couldNotRun,
  /** A repetition's hook settings would lack intutic's gates (a harness would run ungoverned): the run is invalid, never started. */
  E_UNGOVERNED: EXIT.invalid,
  E_INTERRUPTED: EXIT.interrupted,
  E_TERMINATED: EXIT.terminated,
};

/** The exit code of an error code, for results that carry a code rather than throw. */
export function exitCodeFor(code: ErrorCode): number {
  return exitCodeOf[code];
}

export class IntuticError extends Error {
  readonly code: ErrorCode;
  /** Extra lines printed under the message: what was tried, how to fix it. */
  readonly hints: readonly string[];

  constructor(code: ErrorCode, message: string, options: { hints?: readonly string[]; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'IntuticError';
    this.code = code;
    this.hints = options.hints ?? [];
  }

  get exitCode(): number {
    return exitCodeOf[this.code];
  }
}

/**
 * The error a command ends with when the process gets SIGINT (Ctrl-C) or SIGTERM: the reason the CLI's
 * abort signal carries, so a command can throw it and exit 130 or 143 as shells expect.
 */
export function interruptedBy(signal: 'SIGINT' | 'SIGTERM'): IntuticError {
  return signal === 'SIGTERM'
    ? new IntuticError('E_TERMINATED', 'terminated (SIGTERM): stopped')
    : new IntuticError('E_INTERRUPTED', 'interrupted (Ctrl-C): stopped');
}

export function isIntuticError(value: unknown): value is IntuticError {
  return value instanceof IntuticError;
}

/** Render an error for a terminal: a known error as its message and hints, anything else as a bug. */
export function describeError(error: unknown): { text: string; exitCode: number } {
  if (isIntuticError(error)) {
    const lines = [`error[${error.code}]: ${error.message}`, ...error.hints.map((h) => `  ${h}`)];
    return { text: lines.join('\n'), exitCode: error.exitCode };
  }
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  return {
    text: `internal error (this is a bug in intutic; please report it with the lines below):\n${detail}`,
    exitCode: EXIT.bug,
  };
}

export * from './disk-full.ts';
