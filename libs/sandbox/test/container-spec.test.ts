import { describe, expect, it } from 'vitest';
import { ENTRYPOINT_CAPABILITIES, ENTRYPOINT_PATH, GOVERNANCE_ENV, RUN_CA_PATH, SANDBOX_LABEL, sandboxContainerSpec } from '../src/container-spec.ts';
import { GOVERNANCE_MOUNT } from '../src/workspace-protection.ts';

const base = { image: 'intutic/sandbox:1.0.0', command: 'echo hi', workspace: '/tmp/ws', kind: 'docker' as const };

describe('the sandbox container config', () => {
  it('starts the entrypoint as root with only the capabilities it needs, under no-new-privileges and limits', () => {
    const spec = sandboxContainerSpec({ ...base, memoryBytes: 1024 ** 3, pidsLimit: 100 });
    expect(spec.Entrypoint).toEqual([ENTRYPOINT_PATH]);
    expect(spec.Cmd).toEqual(['sh', '-c', 'echo hi']);
    expect(spec.User).toBe('0:0');
    expect(spec.HostConfig?.CapDrop).toEqual(['ALL']);
    expect(spec.HostConfig?.CapAdd).toEqual(ENTRYPOINT_CAPABILITIES);
    expect(spec.HostConfig?.CapAdd).not.toContain('SYS_ADMIN');
    expect(spec.HostConfig?.Privileged).toBeFalsy();
    expect(spec.HostConfig?.SecurityOpt).toContain('no-new-privileges');
    expect(spec.HostConfig?.Memory).toBe(1024 ** 3);
    expect(spec.HostConfig?.MemorySwap).toBe(1024 ** 3);
    expect(spec.HostConfig?.PidsLimit).toBe(100);
    expect(spec.Labels?.[SANDBOX_LABEL]).toBe('1');
  });

  it('mounts the workspace and, when given, the CA file read-only, and nothing else', () => {
    expect(sandboxContainerSpec(base).HostConfig?.Mounts).toEqual([{ Type: 'bind', Source: '/tmp/ws', Target: '/work', ReadOnly: false }]);
    const withCa = sandboxContainerSpec({ ...base, caCertPath: '/tmp/ca.pem' });
    expect(withCa.HostConfig?.Mounts).toEqual([
      { Type: 'bind', Source: '/tmp/ws', Target: '/work', ReadOnly: false },
      { Type: 'bind', Source: '/tmp/ca.pem', Target: RUN_CA_PATH, ReadOnly: true },
    ]);
    expect(withCa.HostConfig?.Binds).toBeUndefined();
  });

  it('mounts governance read-only over itself, pins every directory on the way to it, and tells the entrypoint', () => {
    const spec = sandboxContainerSpec({
      ...base,
      protection: {
        governanceDir: '/jobs/j1/governance',
        readOnly: ['.intutic', '.claude/settings.json', '.claude/settings.local.json', '.cursor/hooks.json'],
        pinned: ['.intutic/events', '.intutic-chaos'],
      },
    });
    const bind = (path: string, readOnly: boolean) => ({ Type: 'bind', Source: `/tmp/ws/${path}`, Target: `/work/${path}`, ReadOnly: readOnly });
    expect(spec.HostConfig?.Mounts).toEqual([
      { Type: 'bind', Source: '/tmp/ws', Target: '/work', ReadOnly: false },
      // Parents first; a settings file's directory is pinned (writable, but it cannot be renamed away).
      bind('.claude', false),
      bind('.cursor', false),
      bind('.intutic', true),
      bind('.intutic-chaos', false),
      bind('.claude/settings.json', true),
      bind('.claude/settings.local.json', true),
      bind('.cursor/hooks.json', true),
      // The gates' log: a writable hole in the read-only .intutic.
      bind('.intutic/events', false),
      { Type: 'bind', Source: '/jobs/j1/governance', Target: GOVERNANCE_MOUNT, ReadOnly: true },
    ]);
    expect(spec.Env).toContain(`${GOVERNANCE_ENV}=1`);
    expect(sandboxContainerSpec(base).Env).not.toContain(`${GOVERNANCE_ENV}=1`);
  });

  it('never pins a directory inside a read-only one (that would make it writable), and refuses paths outside the workspace', () => {
    const spec = sandboxContainerSpec({ ...base, protection: { readOnly: ['.intutic', '.intutic/hooks/gate.cjs'] } });
    expect(spec.HostConfig?.Mounts?.map((m) => [m.Target, m.ReadOnly])).toEqual([
      ['/work', false],
      ['/work/.intutic', true],
      ['/work/.intutic/hooks/gate.cjs', true],
    ]);
    for (const bad of ['../x', '/etc/passwd', '.', 'a/../../b']) {
      expect(() => sandboxContainerSpec({ ...base, protection: { readOnly: [bad] } })).toThrow(/must be inside the workspace/);
    }
  });

  it('has no network at all without a proxy, and names the proxy to the firewall when there is one', () => {
    const closed = sandboxContainerSpec(base);
    expect(closed.HostConfig?.NetworkMode).toBe('none');
    expect(closed.Env).toEqual(['INTUTIC_SANDBOX_ENV_STDIN=1']);
    const open = sandboxContainerSpec({ ...base, proxy: { ip: '172.17.0.1', port: 8080 } });
    expect(open.HostConfig?.NetworkMode).toBe('bridge');
    expect(open.Env).toContain('INTUTIC_SANDBOX_PROXY=172.17.0.1:8080');
    expect(open.HostConfig?.ExtraHosts).toEqual(['host.docker.internal:host-gateway']);
  });

  it('keeps values out of the config: env arrives over stdin, output is not logged by the engine', () => {
    const spec = sandboxContainerSpec(base);
    expect(spec.OpenStdin).toBe(true);
    expect(spec.StdinOnce).toBe(true);
    expect(spec.HostConfig?.LogConfig?.Type).toBe('none');
  });

  it('lets the caller label and name containers for orphan cleanup, without dropping the sandbox label', () => {
    const spec = sandboxContainerSpec({ ...base, name: 'rep-1', labels: { 'dev.intutic.run': 'r1', [SANDBOX_LABEL]: 'spoofed' } });
    expect(spec.name).toBe('rep-1');
    expect(spec.Labels).toEqual({ 'dev.intutic.run': 'r1', [SANDBOX_LABEL]: '1' });
  });
});
