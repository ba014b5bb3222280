// The BUILT CLI (scripts/build.mjs -> apps/cli/dist/intutic.mjs, run through the bin) on real files:
// exit codes, located messages, never a stack trace, the examples path as the bundle resolves it,
// and NPM_REGISTRY_DOMAIN derived by the real `npm config get registry`.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '@intutic/errors';
import { registryDomainFromUrl } from '../src/index.ts';
import { CORPUS_DIR, EXAMPLES_DIR, REPO_ROOT } from './helpers.ts';

const BIN = join(REPO_ROOT, 'apps/cli/bin/intutic.mjs');

function intutic(args: string[], env: NodeJS.ProcessEnv = process.env) {
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd: REPO_ROOT, env, encoding: 'utf8', timeout: 60_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, all: result.stdout + result.stderr };
}

const withoutRegistryVariable = () => {
  const env = { ...process.env };
  delete env['NPM_REGISTRY_DOMAIN'];
  return env;
};

beforeAll(() => {
  execFileSync(process.execPath, [join(REPO_ROOT, 'scripts/build.mjs')], { cwd: REPO_ROOT, stdio: 'pipe', timeout: 120_000 });
}, 180_000);

describe('the built intutic chaos validate', () => {
  it('exits 0 on the shipped examples, deriving the registry domain from npm', () => {
    const { code, stdout, all } = intutic(['chaos', 'validate', '--json', 'examples/registry-down.yaml', 'examples/credential-revoked.yaml', 'examples/poisoned-readme.yaml'], withoutRegistryVariable());
    expect(all).not.toContain('    at ');
    expect(code).toBe(EXIT.ok);
    const registry = execFileSync('npm', ['config', 'get', 'registry'], { cwd: REPO_ROOT, encoding: 'utf8' });
    const report = JSON.parse(stdout);
    expect(report.files[0].experiment.faults[0].match.host).toBe(`*.${registryDomainFromUrl(registry)}`);
  });

  it('exits 3 on broken files with every error located, and no stack trace', () => {
    const files = ['several-errors-at-once.yaml', 'yaml-unterminated-quote.yaml', 'empty-file.yaml', 'top-level-list.yaml'].map((f) => `libs/experiment/test/corpus/${f}`);
    const { code, stdout, all } = intutic(['chaos', 'validate', ...files]);
    expect(code).toBe(EXIT.couldNotRun);
    expect(all).not.toContain('    at ');
    expect(stdout).toContain(`${files[0]}:16:25: error: unknown key "wieght" in probe task_success (did you mean "weight"?)`);
    expect(stdout).toContain(`${files[1]}:17:1: error: YAML syntax: Missing closing "quote`);
    for (const file of files) expect(stdout).toMatch(new RegExp(`^${file}: invalid: \\d+ errors?$`, 'm'));
  });

  it('gives every file of the broken-file corpus a located error and an invalid summary, exit 3, no stack trace', () => {
    const corpus = readdirSync(CORPUS_DIR).filter((f) => f.endsWith('.yaml')).map((f) => relative(REPO_ROOT, join(CORPUS_DIR, f)));
    const { code, stdout, all } = intutic(['chaos', 'validate', ...corpus]);
    expect(code).toBe(EXIT.couldNotRun);
    expect(all).not.toContain('    at ');
    for (const file of corpus) {
      expect(stdout).toMatch(new RegExp(`^${file}:\\d+:\\d+: error: `, 'm'));
      expect(stdout).toMatch(new RegExp(`^${file}: invalid: \\d+ errors?$`, 'm'));
    }
  });

  it('exits 3 with a clear message for a missing file, a directory and a binary file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'intutic-cli-'));
    const binary = join(dir, 'image.yaml');
    writeFileSync(binary, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0xfe]));
    const { code, stdout, all } = intutic(['chaos', 'validate', 'missing.yaml', 'examples', binary]);
    expect(code).toBe(EXIT.couldNotRun);
    expect(all).not.toContain('    at ');
    expect(stdout).toContain('missing.yaml: error: no such file');
    expect(stdout).toContain('examples: error: is a directory');
    expect(stdout).toContain(`${binary}: error: not UTF-8 text`);
  });

  it('says which variable to set when the registry domain cannot be found (no npm on PATH)', () => {
    const env = { ...withoutRegistryVariable(), PATH: mkdtempSync(join(tmpdir(), 'intutic-empty-path-')) };
    const { code, stdout, all } = intutic(['chaos', 'validate', 'examples/registry-down.yaml'], env);
    expect(code).toBe(EXIT.couldNotRun);
    expect(all).not.toContain('    at ');
    expect(stdout).toMatch(/^examples\/registry-down\.yaml:\d+:\d+: error: placeholder \$\{NPM_REGISTRY_DOMAIN\} is not set: set NPM_REGISTRY_DOMAIN in the environment/m);
  });
});

describe('the built intutic chaos list and schema', () => {
  it('list --json gives the absolute examples directory next to the bundle', () => {
    const { code, stdout } = intutic(['chaos', 'list', '--json']);
    expect(code).toBe(EXIT.ok);
    expect(JSON.parse(stdout).examples.dir).toBe(EXAMPLES_DIR);
  });

  it('list prints the catalog', () => {
    const { code, stdout } = intutic(['chaos', 'list']);
    expect(code).toBe(EXIT.ok);
    expect(stdout).toContain('egress.credential_401');
    expect(stdout).toContain(`Examples: ${EXAMPLES_DIR}`);
  });

  it('schema prints the JSON Schema', () => {
    const { code, stdout } = intutic(['chaos', 'schema']);
    expect(code).toBe(EXIT.ok);
    expect(JSON.parse(stdout).$schema).toBe('https://json-schema.org/draft/2020-12/schema');
  });
});
