// `${NAME}` placeholders: committed files never name the registry's host; the value comes from the
// environment, NPM_REGISTRY_DOMAIN from `npm config get registry` when the environment lacks it.
import { describe, expect, it, vi } from 'vitest';
import { environmentResolver, registryDomainFromUrl, validateExperimentText } from '../src/index.ts';
import { check, experimentText } from './helpers.ts';

const hostFault = (host: string) =>
  experimentText({ faults: `  - id: egress.dns_fail\n    match: { host: "${host}" }`, probes: '  - { id: failure_surfaced, weight: 1 }' });

describe('registryDomainFromUrl', () => {
  it.each([
    ['a three-label host loses its first label', 'https://registry.example.org/', 'example.org'],
    ['a four-label host loses only its first label', 'https://npm.corp.example.com/api/', 'corp.example.com'],
    ['a two-label host stays', 'https://example.org/', 'example.org'],
    ['a single-label host stays, the port is dropped', 'http://localhost:4873/', 'localhost'],
    ['an IP address stays whole', 'http://10.0.0.5:4873/', '10.0.0.5'],
    ['surrounding whitespace from npm output is ignored', 'https://registry.example.org/\n', 'example.org'],
    ['not a URL gives nothing', 'undefined', undefined],
  ])('%s', (_name, url, domain) => {
    expect(registryDomainFromUrl(url)).toBe(domain);
  });
});

describe('environmentResolver', () => {
  it('takes a variable from the environment first, without asking npm', () => {
    const npm = vi.fn(() => 'https://registry.example.org/');
    const resolve = environmentResolver({ NPM_REGISTRY_DOMAIN: 'mirror.test' }, npm);
    expect(resolve('NPM_REGISTRY_DOMAIN')).toBe('mirror.test');
    expect(npm).not.toHaveBeenCalled();
  });

  it('derives NPM_REGISTRY_DOMAIN from the npm registry URL, asking npm once', () => {
    const npm = vi.fn(() => 'https://registry.example.org/');
    const resolve = environmentResolver({}, npm);
    expect(resolve('NPM_REGISTRY_DOMAIN')).toBe('example.org');
    expect(resolve('NPM_REGISTRY_DOMAIN')).toBe('example.org');
    expect(npm).toHaveBeenCalledTimes(1);
  });

  it('never asks npm for other variables, and leaves unset ones unresolved', () => {
    const npm = vi.fn(() => 'https://registry.example.org/');
    const resolve = environmentResolver({ EMPTY: '' }, npm);
    expect(resolve('OTHER')).toBeUndefined();
    expect(resolve('EMPTY')).toBeUndefined();
    expect(npm).not.toHaveBeenCalled();
  });

  it('leaves NPM_REGISTRY_DOMAIN unresolved when npm gives no registry', () => {
    expect(environmentResolver({}, () => undefined)('NPM_REGISTRY_DOMAIN')).toBeUndefined();
  });
});

describe('placeholders in experiment files', () => {
  it('resolves a placeholder inside a match pattern', () => {
    const result = check(hostFault('*.${NPM_REGISTRY_DOMAIN}'), { NPM_REGISTRY_DOMAIN: 'example.org' });
    expect(result.errors).toEqual([]);
    expect(result.experiment?.faults[0]?.match.host).toBe('*.example.org');
  });

  it('resolves several placeholders in one value, and $${X} is a literal ${X}', () => {
    const text = experimentText({ extra: 'description: "${A}-${B} costs $${HOME}"' }).replace('description: a valid experiment\n', '');
    const result = check(text, { A: 'one', B: 'two' });
    expect(result.experiment?.description).toBe('one-two costs ${HOME}');
  });

  it('leaves agent and verify to the sandbox shell', () => {
    const text = experimentText().replace('verify: npm test', 'verify: test -n "${HOME}" && npm test');
    const result = check(text, { HOME: '/root' });
    expect(result.experiment?.verify).toBe('test -n "${HOME}" && npm test');
  });

  it('an unset variable is an error at the placeholder, saying which variable to set', () => {
    const result = validateExperimentText(hostFault('*.${NPM_REGISTRY_DOMAIN}'), 'x.yaml', { resolveVariable: () => undefined });
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatchObject({ line: 8, column: 23, code: 'placeholder-unresolved' });
    expect(result.errors[0]!.message).toContain('set NPM_REGISTRY_DOMAIN in the environment');
    expect(result.errors[0]!.message).toContain('npm config get registry');
  });

  it('points at the second placeholder of a value when that is the unset one', () => {
    const result = check(hostFault('${SET_ONE}.${UNSET_TWO}'), { SET_ONE: 'a' });
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]).toMatchObject({ line: 8, column: 32 });
    expect(result.errors[0]!.message).toContain('set UNSET_TWO');
  });

  it('refuses a placeholder that names a secret: its value would be written into the plan', () => {
    const result = check(hostFault('${GITHUB_TOKEN}.test'), { GITHUB_TOKEN: 'ghp_secret' });
    expect(result.errors[0]?.code).toBe('placeholder-secret');
    expect(JSON.stringify(result)).not.toContain('ghp_secret');
  });

  it('rejects a malformed placeholder', () => {
    const result = check(hostFault('${not a name}.test'));
    expect(result.errors[0]?.code).toBe('placeholder-invalid');
  });

  it('a value without placeholders never consults the resolver', () => {
    const resolveVariable = vi.fn(() => undefined);
    const result = validateExperimentText(hostFault('api.github.com'), 'x.yaml', { resolveVariable });
    expect(result.errors).toEqual([]);
    expect(resolveVariable).not.toHaveBeenCalled();
  });
});
