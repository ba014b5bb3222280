// The escape suite: one sandbox container runs fixtures/escape.sh, which tries every way out the
// sandbox must close (outside network, other host ports, Redis, the engine's socket, writes outside
// /work and scratch, capabilities, root, unnamed env) and the one it must leave open (the proxy).
// Controls run the same script in containers opened up on purpose, where every escape must work, so
// each "blocked" is the sandbox's doing and not a typo, a missing binary or nothing listening.
import { createHash, randomUUID } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { chmodSync, copyFileSync, mkdirSync, writeFileSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerRequirement, requireOrSkip } from '@intutic/testkit';
import { runInSandbox, type SandboxRunResult } from '../src/index.ts';
import { docker, httpServer, run, sandboxFixture, tcpServer, tempWorkspace, type Listening, type Ran, type SandboxFixture } from './support.ts';

const ready = requireOrSkip('sandbox escape suite', dockerRequirement());

const ESCAPES = [
  'outside_https_by_name',
  'outside_https_by_address',
  'outside_http_by_address',
  'outside_tcp_443',
  'outside_dns',
  'host_other_port',
  'host_redis_gateway',
  'host_redis_loopback',
  'docker_api_tcp',
  'docker_socket',
  'docker_socket_api',
  'write__',
  'write__etc',
  'write__usr',
  'write__usr_local_bin',
  'write__opt',
  'write__root',
  'write__var',
  'write__srv',
  'write__home',
  'write__etc_ssl_certs',
  'write__opt_intutic',
  'write_etc_passwd',
  'write_bundle',
  'mount_tmpfs',
  'cap_CapInh',
  'cap_CapPrm',
  'cap_CapEff',
  'cap_CapBnd',
  'cap_CapAmb',
  'no_new_privs_off',
  'firewall_undo',
  'raw_socket',
  'chown_to_root',
  'user_namespace',
  'read_pid1_environ',
  'is_root',
  'sudo_present',
  'su_root',
  'setpriv_root',
  'setuid_binary',
  'env_unnamed',
];
const ALLOWED = ['write_work', 'write_events_dir', 'write_gates_log_dir', 'write_home', 'write_tmp', 'env_named', 'proxy_by_address', 'proxy_by_name'];
/** Mount points a sandbox may have besides the kernel's own filesystems: the workspace and what the engine writes. */
const ALLOWED_MOUNTS = ['/work', '/etc/resolv.conf', '/etc/hostname', '/etc/hosts'];
const KERNEL_MOUNTS = /^\/(proc|sys|dev)(\/|$)|^\/$/;

/**
 * Where each escape's positive control runs; every escape not named here runs in the `root` control.
 * `agent`: the agent's uid in a plain container (no no-new-privileges), where su (root has no password
 * in the probe image) and a setuid binary do give root. `host-network`: the host's network namespace,
 * the only place the host's loopback is reachable from. Its target is the machine's Redis on
 * 127.0.0.1:6379; the test never listens there itself, because other suites take whatever answers
 * on that port for their Redis.
 */
const CONTROL_PROBES = { agent: ['su_root', 'setuid_binary', 'sudo_present'], 'host-network': ['host_redis_loopback'] } as const;
type ControlName = 'root' | keyof typeof CONTROL_PROBES;
const CONTROLS: ControlName[] = ['root', 'agent', 'host-network'];
/**
 * Escapes with no positive control on this machine, and why (none today). The sandbox assertion still
 * runs for them. sudo_present's control is the `agent` control with a `sudo` on its PATH: the probe
 * looks for one, and must find it there.
 */
const NO_CONTROL: Record<string, string> = {};
const STOCK_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
/** Gateway ports the probes try where nothing listens on a stock host: the test listens there itself. */
const GATEWAY_TARGET_PORTS = [6379, 2375];

function controlOf(escape: string): ControlName {
  for (const [control, probes] of Object.entries(CONTROL_PROBES)) if ((probes as readonly string[]).includes(escape)) return control as ControlName;
  return 'root';
}

/**
 * The `docker run` settings, image and command of a control; none goes through the sandbox entrypoint.
 * `root`: uid 0 with every capability the engine can grant (not --privileged: an engine whose own
 * bounding set lacks one, as this one lacks SYS_RESOURCE, refuses it), no seccomp or AppArmor, the
 * engine's socket, the unnamed variable, docker-init as PID 1 so /proc/1 is another process as in the
 * sandbox, and inheritable and ambient capabilities raised (setpriv) for cap_CapInh and cap_CapAmb.
 * Its own bridge network, not the host's: firewall_undo sets the OUTPUT policy of the namespace it runs in.
 */
function controlArgs(control: ControlName, image: string, engineSocket: string, unnamed: string): string[] {
  if (control === 'agent') return ['--user', 'agent', '-e', `PATH=/work/control-bin:${STOCK_PATH}`, '--entrypoint', 'bash', image, '/work/escape.sh'];
  if (control === 'host-network') return ['--network', 'host', '--user', 'agent', '--entrypoint', 'bash', image, '/work/escape.sh'];
  return [
    '--init',
    '--user',
    '0',
    '--cap-add',
    'ALL',
    '--cap-drop',
    'SYS_RESOURCE',
    '--security-opt',
    'seccomp=unconfined',
    '--security-opt',
    'apparmor=unconfined',
    '-v',
    `${engineSocket}:/var/run/docker.sock`,
    '-e',
    `UNNAMED_SECRET=${unnamed}`,
    '--entrypoint',
    'setpriv',
    image,
    '--inh-caps=+net_raw,+setuid',
    '--ambient-caps=+net_raw,+setuid',
    '--',
    'bash',
    '/work/escape.sh',
  ];
}

function parseResults(stdout: string): Map<string, { status: string; detail: string }> {
  const results = new Map<string, { status: string; detail: string }>();
  for (const line of stdout.split('\n')) {
    const match = /^RESULT (\S+) (\S+) ?(.*)$/.exec(line);
    if (match) results.set(match[1]!, { status: match[2]!, detail: match[3]!.trim() });
  }
  return results;
}

/** A listener the test owns on host:port, or undefined when something else already listens there (then that is the target). */
async function listenIfFree(host: string, port: number): Promise<(Listening & { connections: () => number }) | undefined> {
  try {
    return await tcpServer(host, port);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') return undefined;
    throw error;
  }
}

describe.runIf(ready)('the sandbox, seen from inside', () => {
  let fx: SandboxFixture;
  let probeImage: string;
  let proxy: Listening;
  let other: Listening & { connections: () => number };
  /** Listeners the test started on the gateway's 6379 and 2375, by port. */
  const gatewayTargets = new Map<number, Listening & { connections: () => number }>();
  /** Connections each host listener had when the sandbox was done, before any control ran. */
  const sandboxConnections: Record<string, number> = {};
  let workspace: string;
  let controlDir: string;
  let registry: { url: string; host: string; ip: string };
  let result: SandboxRunResult;
  let results = new Map<string, { status: string; detail: string }>();
  const controls = new Map<ControlName, { ran: Ran; results: Map<string, { status: string; detail: string }> }>();
  const named = `named-${randomUUID()}\nsecond line 'single' "double" $HOME \`tick\` ü`;
  const namedToken = named.split('\n')[0]!;
  const unnamed = `unnamed-${randomUUID()}`;
  const runId = `${process.pid}-${Date.now()}`;
  const name = `intutic-escape-${runId}`;
  const controlName = (control: ControlName) => `${name}-control-${control}`;
  const secretHits: Record<string, string> = {};
  const controlHits: Record<string, string> = {};

  beforeAll(async () => {
    fx = await sandboxFixture('base');
    // A user image built FROM ours that makes root easy to reach: a setuid-root `id` and no password on
    // root. The sandbox must run it unchanged and neither may raise privileges inside it (the controls
    // show that both do outside it). Built without network: nothing here may reach the Debian mirror.
    probeImage = `intutic-test/sandbox-escape:${runId}`;
    const build = await docker(
      ['build', '-q', '--network', 'none', '-t', probeImage, '--build-arg', `SANDBOX_IMAGE=${fx.image}`, '-'],
      'ARG SANDBOX_IMAGE\nFROM ${SANDBOX_IMAGE}\nRUN cp /usr/bin/id /usr/local/bin/suid-id && chmod 4755 /usr/local/bin/suid-id && passwd -d root\n',
    );
    expect(build.code, build.stderr).toBe(0);

    proxy = await httpServer(fx.gateway, 'proxy-ok');
    other = await tcpServer(fx.gateway);
    for (const port of GATEWAY_TARGET_PORTS) {
      const listener = await listenIfFree(fx.gateway, port);
      if (listener) gatewayTargets.set(port, listener);
    }
    const url = (await run('npm', ['config', 'get', 'registry'])).stdout.trim();
    const host = new URL(url).hostname;
    registry = { url, host, ip: (await lookup(host, { family: 4 })).address };

    workspace = tempWorkspace();
    mkdirSync(join(workspace, '.intutic-chaos'));
    mkdirSync(join(workspace, '.intutic/events'), { recursive: true });
    copyFileSync(new URL('./fixtures/escape.sh', import.meta.url), join(workspace, 'escape.sh'));

    const env = {
      GW: fx.gateway,
      PROXY_PORT: String(proxy.port),
      OTHER_PORT: String(other.port),
      REG_URL: registry.url,
      REG_HOST: registry.host,
      REG_IP: registry.ip,
      NAMED_SECRET: named,
      UNNAMED_SECRET: unnamed,
    };
    let stdout = '';
    let atCheckpoint!: () => void;
    const checkpoint = new Promise<void>((resolve) => (atCheckpoint = resolve));
    const running = runInSandbox(fx.engine, {
      image: probeImage,
      command: 'bash /work/escape.sh',
      workspace,
      envNames: ['GW', 'PROXY_PORT', 'OTHER_PORT', 'REG_URL', 'REG_HOST', 'REG_IP', 'NAMED_SECRET'],
      env,
      proxy: { host: fx.gateway, port: proxy.port },
      name,
      timeoutMs: 150_000,
      onStdout: (chunk) => {
        stdout += chunk.toString();
        if (stdout.includes('CHECKPOINT')) atCheckpoint();
      },
      onStderr: (chunk) => process.stderr.write(chunk),
    });
    await Promise.race([checkpoint, running]);

    // While the container exists: the named value must be nowhere on disk, in its config or in `ps`.
    const inspect = await docker(['inspect', name]);
    expect(inspect.code, inspect.stderr).toBe(0);
    const info = JSON.parse(inspect.stdout)[0] as { Id: string; GraphDriver: { Data: { UpperDir?: string } } };
    const places = [`/var/lib/docker/containers/${info.Id}`, info.GraphDriver.Data.UpperDir, '/var/log/intutic'].filter((p): p is string =>
      Boolean(p && existsSync(p)),
    );
    for (const place of places) {
      secretHits[place] = (await run('grep', ['-rl', '--', namedToken, place])).stdout.trim();
      controlHits[place] = (await run('grep', ['-rl', '--', name, place])).stdout.trim();
    }
    secretHits.inspect = inspect.stdout.includes(namedToken) ? 'docker inspect' : '';
    secretHits.ps = (await run('ps', ['-eo', 'args'])).stdout.includes(namedToken) ? 'ps' : '';
    writeFileSync(join(workspace, '.continue'), '');

    result = await running;
    results = parseResults(stdout);
    process.stderr.write(
      `escape suite results:\n${stdout
        .split('\n')
        .filter((l) => l.startsWith('RESULT'))
        .join('\n')}\n`,
    );
    sandboxConnections[`${fx.gateway}:${other.port}`] = other.connections();
    for (const [port, listener] of gatewayTargets) sandboxConnections[`${fx.gateway}:${port}`] = listener.connections();

    // The controls, one after the other (a shared machine): the same script, read-only at /work with
    // `.continue` already there, each limited to the escapes it opens.
    controlDir = tempWorkspace('intutic-escape-control-');
    copyFileSync(new URL('./fixtures/escape.sh', import.meta.url), join(controlDir, 'escape.sh'));
    writeFileSync(join(controlDir, '.continue'), '');
    mkdirSync(join(controlDir, 'control-bin'));
    writeFileSync(join(controlDir, 'control-bin/sudo'), '#!/bin/sh\nexec "$@"\n', { mode: 0o755 });
    chmodSync(controlDir, 0o755);
    const engineSocket = fx.engine.endpoint.startsWith('unix://') ? fx.engine.endpoint.slice('unix://'.length) : '/var/run/docker.sock';
    const controlEnv = {
      GW: fx.gateway,
      PROXY_PORT: String(proxy.port),
      OTHER_PORT: String(other.port),
      REG_URL: registry.url,
      REG_HOST: registry.host,
      REG_IP: registry.ip,
    };
    for (const control of CONTROLS) {
      const probes = ESCAPES.filter((escape) => controlOf(escape) === control && !(escape in NO_CONTROL));
      const env = Object.entries({ ...controlEnv, ESCAPE_PROBES: probes.join(' ') }).flatMap(([key, value]) => ['-e', `${key}=${value}`]);
      const ran = await docker([
        'run',
        '--rm',
        '--name',
        controlName(control),
        '-v',
        `${controlDir}:/work:ro`,
        ...env,
        ...controlArgs(control, probeImage, engineSocket, unnamed),
      ]);
      controls.set(control, { ran, results: parseResults(ran.stdout) });
      process.stderr.write(
        `escape control ${control} (exit ${ran.code}):\n${ran.stdout
          .split('\n')
          .filter((l) => l.startsWith('RESULT'))
          .join('\n')}\n${ran.stderr}`,
      );
    }
  }, 600_000);

  afterAll(async () => {
    // A control whose `docker run` timed out may still be running; it goes before its image.
    for (const control of CONTROLS) await docker(['rm', '-f', controlName(control)]);
    if (probeImage) await docker(['rmi', probeImage]);
    await proxy?.close();
    await other?.close();
    for (const listener of gatewayTargets.values()) await listener.close();
    if (workspace) rmSync(workspace, { recursive: true, force: true });
    if (controlDir) rmSync(controlDir, { recursive: true, force: true });
  });

  it('ran the whole script and exited normally', () => {
    expect(result.error).toBeUndefined();
    expect(result.exitCode).toBe(0);
    expect(result.timedOut).toBe(false);
  });

  it.each(ESCAPES)('blocks %s', (escape) => {
    const got = results.get(escape);
    expect(got, `no result for ${escape}`).toBeDefined();
    expect(got!.status, `${escape}: ${got!.detail}`).toBe('blocked');
  });

  it.for(ESCAPES)('control: %s works outside the sandbox', (escape, { skip }) => {
    if (escape in NO_CONTROL) skip(`no positive control: ${NO_CONTROL[escape]}`);
    const control = controlOf(escape);
    const ran = controls.get(control);
    const got = ran?.results.get(escape);
    expect(got, `no result for ${escape} from the ${control} control: ${ran?.ran.stderr ?? 'it did not run'}`).toBeDefined();
    expect(got!.status, `${escape} in the ${control} control: ${got!.detail}`).toBe('OPEN');
  });

  it.each(ALLOWED)('allows %s', (allowed) => {
    const got = results.get(allowed);
    expect(got, `no result for ${allowed}`).toBeDefined();
    expect(got!.status, `${allowed}: ${got!.detail}`).toBe('ok');
  });

  it('reaches the named proxy address and nothing else on the host', () => {
    expect(results.get('proxy_by_address')?.detail).toBe('proxy-ok');
    expect(results.get('proxy_by_name')?.detail).toBe('proxy-ok');
    // Counted before the controls ran, which do connect.
    expect(Object.keys(sandboxConnections)).toHaveLength(1 + gatewayTargets.size);
    for (const [target, connections] of Object.entries(sandboxConnections)) expect(connections, `the sandbox reached ${target}`).toBe(0);
  });

  it('passes a named value exactly and never writes it to disk, the container config or a command line', () => {
    expect(results.get('env_named')?.detail).toBe(createHash('sha256').update(named).digest('hex'));
    expect(Object.keys(controlHits).length).toBeGreaterThan(0);
    // The grep does find what is there (the container's name), so an empty secret result means absence.
    expect(controlHits[Object.keys(controlHits)[0]!]).not.toBe('');
    for (const [place, hits] of Object.entries(secretHits)) expect(hits, `the secret was found in ${place}`).toBe('');
  });

  it('mounts nothing of the host but the workspace', () => {
    const mounts = (results.get('mounts')?.detail ?? '').split(' ').filter(Boolean);
    expect(mounts).toContain('/work');
    const extra = mounts.filter((m) => !KERNEL_MOUNTS.test(m) && !ALLOWED_MOUNTS.includes(m));
    expect(extra).toEqual([]);
  });

  it('leaves no container behind', async () => {
    expect((await docker(['ps', '-a', '-q', '--filter', `name=${name}`])).stdout.trim()).toBe('');
  });
});
