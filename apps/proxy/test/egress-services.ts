// Loopback stand-ins for the services agents reach through the egress proxy, speaking their real
// protocols so real clients succeed when no fault applies: a GitHub-like REST API, git smart HTTP
// (the real `git http-backend` as CGI) and an npm registry serving one real package tarball.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';

export const FIXTURE_PACKAGE = 'intutic-fixture-pad';

/** A bare repository `acme/app.git` under the returned root, with one commit. */
export function makeGitProjectRoot(dir: string): string {
  const root = join(dir, 'git-root');
  const work = join(dir, 'git-work');
  mkdirSync(work, { recursive: true });
  const git = (args: string[], cwd: string) =>
    execFileSync('git', args, { cwd, stdio: 'pipe', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });
  git(['init', '-q', '-b', 'main'], work);
  writeFileSync(join(work, 'README.md'), '# app\n');
  git(['add', '.'], work);
  git(['-c', 'user.name=t', '-c', 'user.email=t@example.test', 'commit', '-q', '-m', 'first'], work);
  mkdirSync(join(root, 'acme'), { recursive: true });
  git(['clone', '-q', '--bare', work, join(root, 'acme', 'app.git')], dir);
  return root;
}

/** Serve git smart HTTP by running `git http-backend` as a CGI program. */
export function serveGit(projectRoot: string, req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'https://git.invalid');
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    GIT_PROJECT_ROOT: projectRoot,
    GIT_HTTP_EXPORT_ALL: '1',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    PATH_INFO: decodeURIComponent(url.pathname),
    QUERY_STRING: url.search.slice(1),
    REQUEST_METHOD: req.method ?? 'GET',
    CONTENT_TYPE: String(req.headers['content-type'] ?? ''),
    REMOTE_ADDR: '127.0.0.1',
  };
  if (req.headers['content-encoding']) env.HTTP_CONTENT_ENCODING = String(req.headers['content-encoding']);
  if (req.headers['git-protocol']) env.GIT_PROTOCOL = String(req.headers['git-protocol']);
  const child = spawn('git', ['http-backend'], { env, stdio: ['pipe', 'pipe', 'ignore'] });
  req.pipe(child.stdin);
  child.stdin.on('error', () => undefined);
  let head = Buffer.alloc(0);
  let headersDone = false;
  child.stdout.on('data', (chunk: Buffer) => {
    if (headersDone) {
      res.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) return;
    headersDone = true;
    let status = 200;
    const headers: Record<string, string> = {};
    for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === 'status') status = Number.parseInt(value, 10);
      else headers[name] = value;
    }
    res.writeHead(status, headers);
    res.write(head.subarray(end + 4));
  });
  child.on('close', () => res.end());
}

export interface NpmFixture {
  packument(baseUrl: string): string;
  tarball: Buffer;
}

/** A one-file package packed with the real tar, and its packument. */
export function makeNpmFixture(dir: string): NpmFixture {
  const pkgDir = join(dir, 'npm-src', 'package');
  mkdirSync(pkgDir, { recursive: true });
  writeFileSync(join(pkgDir, 'package.json'), JSON.stringify({ name: FIXTURE_PACKAGE, version: '1.0.0', main: 'index.js' }));
  writeFileSync(join(pkgDir, 'index.js'), 'module.exports = (s, n) => String(s).padStart(n);\n');
  const tgz = join(dir, 'npm-src', 'pkg.tgz');
  execFileSync('tar', ['-czf', tgz, '-C', join(dir, 'npm-src'), 'package']);
  const tarball = readFileSync(tgz);
  const integrity = `sha512-${createHash('sha512').update(tarball).digest('base64')}`;
  const shasum = createHash('sha1').update(tarball).digest('hex');
  return {
    tarball,
    packument: (baseUrl) =>
      JSON.stringify({
        name: FIXTURE_PACKAGE,
        'dist-tags': { latest: '1.0.0' },
        versions: {
          '1.0.0': {
            name: FIXTURE_PACKAGE,
            version: '1.0.0',
            main: 'index.js',
            dist: { tarball: `${baseUrl}/${FIXTURE_PACKAGE}/-/${FIXTURE_PACKAGE}-1.0.0.tgz`, integrity, shasum },
          },
        },
      }),
  };
}

/** Route by Host: the GitHub-like API, git, or the registry. */
export function servicesHandler(opts: { gitRoot: string; npm: NpmFixture; hosts: { api: string; git: string; registry: string } }) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const host = String(req.headers.host ?? '').replace(/:\d+$/, '');
    const path = (req.url ?? '/').split('?')[0]!;
    if (host === opts.hosts.git) return serveGit(opts.gitRoot, req, res);
    if (host === opts.hosts.registry) {
      if (path === `/${FIXTURE_PACKAGE}`) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(opts.npm.packument(`https://${opts.hosts.registry}`));
      } else if (path === `/${FIXTURE_PACKAGE}/-/${FIXTURE_PACKAGE}-1.0.0.tgz`) {
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': opts.npm.tarball.length });
        res.end(opts.npm.tarball);
      } else {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'Not found' }));
      }
      return;
    }
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify({ login: 'octocat', id: 1 }) + '\n');
  };
}
