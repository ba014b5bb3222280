// The container configuration of one sandbox run, as plain data (pure, unit-tested): root with only
// the capabilities the entrypoint needs to set the firewall and switch user (it drops them all before
// the command runs), no-new-privileges, memory and pid limits, and nothing mounted but the workspace
// (and, when asked, the governance the agent must not change: see workspace-protection.ts).
import type Docker from 'dockerode';
import { protectionMounts, type WorkspaceProtection } from './workspace-protection.ts';

/** Every sandbox container carries this label; orphan cleanup only ever removes such containers. */
export const SANDBOX_LABEL = 'dev.intutic.sandbox';
export const ENTRYPOINT_PATH = '/usr/local/bin/intutic-sandbox-entrypoint';
/** Where the run's CA certificate is mounted read-only; the entrypoint adds it to the trust store. */
export const RUN_CA_PATH = '/etc/intutic/run-ca.crt';
/** Tells the entrypoint that governance is mounted: it seals /work and the pinned directories (see entrypoint.sh). */
export const GOVERNANCE_ENV = 'INTUTIC_SANDBOX_GOVERNANCE';
export const DEFAULT_MEMORY_BYTES = 4 * 1024 ** 3;
export const DEFAULT_PIDS_LIMIT = 2048;
/** Held by the entrypoint only: firewall (NET_ADMIN, NET_RAW), workspace and home ownership (CHOWN,
 * DAC_OVERRIDE, FOWNER), switching to the agent user with an empty bounding set (SETUID, SETGID,
 * SETPCAP), and killing what the command leaves behind (KILL). */
export const ENTRYPOINT_CAPABILITIES = ['NET_ADMIN', 'NET_RAW', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'SETUID', 'SETGID', 'SETPCAP', 'KILL'];

export interface SandboxSpecInput {
  image: string;
  command: string;
  workspace: string;
  /** The proxy as the firewall needs it: an IPv4 address and a port. */
  proxy?: { ip: string; port: number };
  caCertPath?: string;
  /** Governance to mount read-only (and the directories around it to pin). */
  protection?: WorkspaceProtection;
  labels?: Record<string, string>;
  name?: string;
  memoryBytes?: number;
  pidsLimit?: number;
  kind: 'docker' | 'podman';
}

export function sandboxContainerSpec(input: SandboxSpecInput): Docker.ContainerCreateOptions {
  const memory = input.memoryBytes ?? DEFAULT_MEMORY_BYTES;
  const mounts: Docker.MountConfig = [{ Type: 'bind', Source: input.workspace, Target: '/work', ReadOnly: false }];
  if (input.protection) mounts.push(...protectionMounts(input.workspace, input.protection));
  if (input.caCertPath) mounts.push({ Type: 'bind', Source: input.caCertPath, Target: RUN_CA_PATH, ReadOnly: true });
  const env = ['INTUTIC_SANDBOX_ENV_STDIN=1'];
  if (input.proxy) env.push(`INTUTIC_SANDBOX_PROXY=${input.proxy.ip}:${input.proxy.port}`);
  if (input.protection) env.push(`${GOVERNANCE_ENV}=1`);
  return {
    ...(input.name ? { name: input.name } : {}),
    Image: input.image,
    // Set explicitly so an image built FROM ours that changed ENTRYPOINT or USER still goes through it.
    Entrypoint: [ENTRYPOINT_PATH],
    Cmd: ['sh', '-c', input.command],
    User: '0:0',
    WorkingDir: '/work',
    Env: env,
    Labels: { ...input.labels, [SANDBOX_LABEL]: '1' },
    // stdin carries the env block (see env-block.ts) and closes after it.
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    OpenStdin: true,
    StdinOnce: true,
    Tty: false,
    HostConfig: {
      Mounts: mounts,
      CapDrop: ['ALL'],
      CapAdd: ENTRYPOINT_CAPABILITIES,
      SecurityOpt: ['no-new-privileges'],
      Memory: memory,
      MemorySwap: memory,
      PidsLimit: input.pidsLimit ?? DEFAULT_PIDS_LIMIT,
      // No network namespace to the outside at all when there is no proxy to reach.
      NetworkMode: input.proxy ? 'bridge' : 'none',
      ...(input.proxy && input.kind === 'docker' ? { ExtraHosts: ['host.docker.internal:host-gateway'] } : {}),
      // Output is streamed to the caller; the engine keeps no copy on disk (it may hold secrets).
      LogConfig: { Type: 'none', Config: {} },
      AutoRemove: input.kind === 'docker',
    },
  };
}
