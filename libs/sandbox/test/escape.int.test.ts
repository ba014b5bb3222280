// The escape suite: one sandbox container runs fixtures/escape.sh, which tries every way out the
// sandbox must close (outside network, other host ports, Redis, the engine's socket, writes outside
// /work and scratch, capabilities, root, unnamed env) and the one it must leave open (the proxy).
// Controls run the same probes in a plain container, so each "blocked" is the sandbox's doing.
import { createHash, randomUUID } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { copyFileSync, mkdirSync, writeFileSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerRequirement, requireOrSkip } from '@intutic/testkit';
import { runInSandbox, type SandboxRunResult } from '../src/index.ts';
import { CLI_VERSION, docker, httpServer, run, sandboxFixture, tcpServer, tempWorkspace, type Listening, type SandboxFixture } from './support.ts';

const ready = requireOrSkip('sandbox escape suite', dockerRequirement());

const ESCAPES = [
  'outside_https_by_name', 'outside_https_by_address', 'outside_http_by_address', 'outside_tcp_443', 'outside_dns',
  'host_other_port', 'host_redis_gateway', 'host_redis_loopback', 'docker_api_tcp', 'docker_socket', 'docker_socket_api',
  'write__', 'write__etc', 'write__usr', 'write__usr_local_bin', 'write__opt', 'write__root', 'write__var', 'write__srv', 'write__home',
  'write__etc_ssl_certs', 'write__opt_intutic', 'write_etc_passwd', 'write_bundle', 'mount_tmpfs',
  'cap_CapInh', 'cap_CapPrm', 'cap_CapEff', 'cap_CapBnd', 'cap_CapAmb', 'no_new_privs_off', 'firewall_undo', 'raw_socket',
  'chown_to_root', 'user_namespace', 'read_pid1_environ',
  'is_root', 'sudo_present', 'su_root', 'setpriv_root', 'setuid_binary',
  'env_unnamed',
];
const ALLOWED = ['write_work', 'write_events_dir', 'write_gates_log_dir', 'write_home', 'write_tmp', 'env_named', 'proxy_by_address', 'proxy_by_name'];
/** Mount points a sandbox may have besides the kernel's own filesystems: the workspace and what the engine writes. */
const ALLOWED_MOUNTS = ['/work', '/etc/resolv.conf', '/etc/hostname', '/etc/hosts'];
const KERNEL_MOUNTS = /^\/(proc|sys|dev)(\/|$)|^\/$/;

describe.runIf(ready)('the sandbox, seen from inside', () => {
  let fx: SandboxFixture;
  let probeImage: string;
  let proxy: Listening;
  let other: Listening & { connections: () => number };
  let workspace: string;
  let registry: { url: string; host: string; ip: string };
  let result: SandboxRunResult;
  const results = new Map<string, { status: string; detail: string }>();
  const named = `named-${randomUUID()}\nsecond line 'single' "double" $HOME \`tick\` ü`;
  const namedToken = named.split('\n')[0]!;
  const unnamed = `unnamed-${randomUUID()}`;
  const name = `intutic-escape-${process.pid}-${Date.now()}`;
  const secretHits: Record<string, string> = {};
  const controlHits: Record<string, string> = {};

  beforeAll(async () => {
    fx = await sandboxFixture('base');
    // A user image built FROM ours, plus a setuid-root `id`: the sandbox must run it unchanged and the
    // setuid bit must not raise privileges inside it.
    probeImage = `intutic-test/sandbox-escape:${CLI_VERSION}`;
    const build = await docker(['build', '-q', '-t', probeImage, '--build-arg', `SANDBOX_IMAGE=${fx.image}`, '-'], 'ARG SANDBOX_IMAGE\nFROM ${SANDBOX_IMAGE}\nRUN cp /usr/bin/id /usr/local/bin/suid-id && chmod 4755 /usr/local/bin/suid-id\n');
    expect(build.code, build.stderr).toBe(0);

    proxy = await httpServer(fx.gateway, 'proxy-ok');
    other = await tcpServer(fx.gateway);
    const url = (await run('npm', ['config', 'get', 'registry'])).stdout.trim();
    const host = new URL(url).hostname;
    registry = { url, host, ip: (await lookup(host, { family: 4 })).address };

    workspace = tempWorkspace();
    mkdirSync(join(workspace, '.intutic-chaos'));
    mkdirSync(join(workspace, '.intutic/events'), { recursive: true });
    copyFileSync(new URL('./fixtures/escape.sh', import.meta.url), join(workspace, 'escape.sh'));

    const env = { GW: fx.gateway, PROXY_PORT: String(proxy.port), OTHER_PORT: String(other.port), REG_URL: registry.url, REG_HOST: registry.host, REG_IP: registry.ip, NAMED_SECRET: named, UNNAMED_SECRET: unnamed };
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
    const places = [`/var/lib/docker/containers/${info.Id}`, info.GraphDriver.Data.UpperDir, '/var/log/intutic'].filter((p): p is string => Boolean(p && existsSync(p)));
    for (const place of places) {
      secretHits[place] = (await run('grep', ['-rl', '--', namedToken, place])).stdout.trim();
      controlHits[place] = (await run('grep', ['-rl', '--', name, place])).stdout.trim();
    }
    secretHits.inspect = inspect.stdout.includes(namedToken) ? 'docker inspect' : '';
    secretHits.ps = (await run('ps', ['-eo', 'args'])).stdout.includes(namedToken) ? 'ps' : '';
    writeFileSync(join(workspace, '.continue'), '');

    result = await running;
    for (const line of stdout.split('\n')) {
      const match = /^RESULT (\S+) (\S+) ?(.*)$/.exec(line);
      if (match) results.set(match[1]!, { status: match[2]!, detail: match[3]!.trim() });
    }
    process.stderr.write(`escape suite results:\n${stdout.split('\n').filter((l) => l.startsWith('RESULT')).join('\n')}\n`);
   }, 600_000);

  afterAll(async () => {
    await docker(['rmi', probeImage]);
    await proxy?.close();
    await other?.close();
    if (workspace) rmSync(workspace, { recursive: true, force: true });
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

  it.each(ALLOWED)('allows %s', (allowed) => {
    const got = results.get(allowed);
    expect(got, `no result for ${allowed}`).toBeDefined();
    expect(got!.status, `${allowed}: ${got!.detail}`).toBe('ok');
  });

  it('reaches the named proxy address and nothing else on the host', () => {
    expect(results.get('proxy_by_address')?.detail).toBe('proxy-ok');
    expect(results.get('proxy_by_name')?.detail).toBe('proxy-ok');
    expect(other.connections()).toBe(0);
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

  // Controls: without the sandbox, the same probes succeed, so the suite can fail.
  it('control: a plain container reaches the registry, the other host port and root through setuid', async () => {
    const probe = (script: string) => docker(['run', '--rm', '--user', '1000', '--entrypoint', 'bash', probeImage, '-c', script]);
    const tcp = (host: string, port: number) => `timeout 5 bash -c 'exec 3<>/dev/tcp/${host}/${port}' && echo open`;
    expect((await probe(tcp(registry.ip, 443))).stdout.trim()).toBe('open');
    expect((await probe(tcp(fx.gateway, other.port))).stdout.trim()).toBe('open');
    expect((await probe('/usr/local/bin/suid-id -u')).stdout.trim()).toBe('0');
  });
});
