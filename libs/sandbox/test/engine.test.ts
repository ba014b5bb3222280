import { describe, expect, it } from 'vitest';
import { engineCandidates } from '../src/engine.ts';
import { firstHostAddress } from '../src/gateway.ts';
import { describeEntrypointFailure, ENTRYPOINT_EXIT } from '../src/entrypoint-codes.ts';

describe('engine candidates', () => {
  it("tries Docker's default socket, then Podman's sockets", () => {
    const endpoints = engineCandidates({ XDG_RUNTIME_DIR: '/run/user/1000' }).map((c) => c.endpoint);
    expect(endpoints).toEqual(['unix:///var/run/docker.sock', 'unix:///run/user/1000/podman/podman.sock', 'unix:///run/podman/podman.sock']);
  });

  it('uses DOCKER_HOST instead of the default socket when it is set', () => {
    const candidates = engineCandidates({ DOCKER_HOST: 'tcp://10.0.0.5:2375' });
    expect(candidates.map((c) => c.endpoint)).toEqual(['tcp://10.0.0.5:2375', 'unix:///run/podman/podman.sock']);
    expect(candidates[0]!.options).toMatchObject({ host: '10.0.0.5', port: 2375, protocol: 'http' });
  });

  it('marks endpoints it cannot try, with the reason', () => {
    const [missing] = engineCandidates({ DOCKER_HOST: 'unix:///nonexistent/docker.sock' });
    expect(missing!.unusable).toBe('no socket there');
    const [ssh] = engineCandidates({ DOCKER_HOST: 'ssh://me@box' });
    expect(ssh!.unusable).toMatch(/unsupported DOCKER_HOST scheme/);
  });
});

describe('the bridge gateway', () => {
  it("derives the bridge driver's gateway from the subnet", () => {
    expect(firstHostAddress('172.17.0.0/16')).toBe('172.17.0.1');
    expect(firstHostAddress('10.88.0.0/16')).toBe('10.88.0.1');
    expect(firstHostAddress('192.168.5.128/25')).toBe('192.168.5.129');
    expect(firstHostAddress('fd00::/64')).toBeUndefined();
  });
});

describe('entrypoint failures', () => {
  it("tells the sandbox's own failures from the command's exit code", () => {
    expect(describeEntrypointFailure(ENTRYPOINT_EXIT.firewall, 'intutic-sandbox: firewall could not be applied')).toMatch(
      /^the sandbox firewall could not be applied, so the command was not run: firewall/,
    );
    // The same code without the entrypoint's message is the command's own.
    expect(describeEntrypointFailure(ENTRYPOINT_EXIT.firewall, '')).toBeUndefined();
    expect(describeEntrypointFailure(7, 'intutic-sandbox: x')).toBeUndefined();
  });

  it('says an image whose entrypoint reads another env block needs building again', () => {
    expect(describeEntrypointFailure(ENTRYPOINT_EXIT.envBlock, 'intutic-sandbox: unexpected environment block header')).toMatch(
      /did not receive its environment: unexpected environment block header \(the image's entrypoint is from another version of intutic: build the image again FROM/,
    );
    expect(describeEntrypointFailure(ENTRYPOINT_EXIT.envBlock, 'intutic-sandbox: the environment block ended early')).not.toMatch(/another version/);
  });
});
