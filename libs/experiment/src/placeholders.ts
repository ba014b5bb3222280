// `${NAME}` placeholders in string values, resolved from the environment when the file is validated,
// so committed files need not name hosts (the npm registry's) that differ between machines.
// agent and verify are shell commands run in the sandbox: a `${…}` there belongs to that shell.
// What was substituted is returned too: messages and printed output show a placeholder by its name,
// never its value (see redact.ts).
import { isMap, isScalar, isSeq } from 'yaml';
import { MAX_PLACEHOLDERS } from './limits.ts';
import type { Substitution } from './redact.ts';
import { positionOf, type LocatedProblem, type YamlSource } from './source.ts';

/** The value of a placeholder's variable, or undefined when it is not set. */
export type ResolveVariable = (name: string) => string | undefined;

export const REGISTRY_DOMAIN_VARIABLE = 'NPM_REGISTRY_DOMAIN';

/** Top-level keys whose values are left to the sandbox's shell. */
const SHELL_KEYS = new Set(['agent', 'verify']);
const PLACEHOLDER = /\$\$\{|\$\{([^}]*)\}/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
// A resolved value is written into the plan and the report; secrets only ever travel by name.
const SECRET_LIKE = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|COOKIE|SESSION/i;

/**
 * The registry's domain from its URL: the host, minus its first label when it has three or more
 * (`https://registry.example.org/` -> `example.org`), so `*.${NPM_REGISTRY_DOMAIN}` covers its hosts.
 */
export function registryDomainFromUrl(url: string): string | undefined {
  let host: string;
  try {
    host = new URL(url.trim()).hostname;
  } catch {
    return undefined;
  }
  if (host === '') return undefined;
  if (/^[\d.]+$/.test(host) || host.includes(':') || host.startsWith('[')) return host;
  const labels = host.split('.');
  return labels.length >= 3 ? labels.slice(1).join('.') : host;
}

/**
 * Resolve variables from `env`; NPM_REGISTRY_DOMAIN, when the env does not set it, from the URL that
 * `npmRegistryUrl` gives (`npm config get registry`), asked at most once and only when needed.
 */
export function environmentResolver(env: Readonly<Record<string, string | undefined>>, npmRegistryUrl: () => string | undefined): ResolveVariable {
  let registryDomain: { value: string | undefined } | undefined;
  return (name) => {
    const value = env[name];
    if (value !== undefined && value !== '') return value;
    if (name !== REGISTRY_DOMAIN_VARIABLE) return undefined;
    if (!registryDomain) {
      const url = npmRegistryUrl();
      registryDomain = { value: url === undefined ? undefined : registryDomainFromUrl(url) };
    }
    return registryDomain.value;
  };
}

function unresolvedMessage(name: string): string {
  const hint =
    name === REGISTRY_DOMAIN_VARIABLE
      ? `set ${name} in the environment (it is derived from \`npm config get registry\` when npm has a registry configured)`
      : `set ${name} in the environment, or write $\${${name}} for a literal \${${name}}`;
  return `placeholder \${${name}} is not set: ${hint}`;
}

export interface PlaceholderResult {
  problems: LocatedProblem[];
  /** Each string value that changed: as written, and with its variables' values in. */
  substitutions: Substitution[];
}

/** Substitute placeholders in the document's string values in place; problems are located. */
export function resolvePlaceholders(source: YamlSource, resolve: ResolveVariable): PlaceholderResult {
  const state: SubstituteState = { source, resolve, problems: [], substitutions: [], count: 0 };
  const visitNode = (node: unknown): void => {
    if (isMap(node)) {
      for (const pair of node.items) visitNode(pair.value);
    } else if (isSeq(node)) {
      for (const item of node.items) visitNode(item);
    } else if (isScalar(node) && typeof node.value === 'string' && node.value.includes('${')) {
      const template = node.value;
      const variables: Substitution['variables'] = [];
      const resolved = substitute(template, node.range ? [node.range[0], node.range[1]] : [0, 0], state, variables);
      node.value = resolved;
      if (resolved !== template) state.substitutions.push({ template, resolved, variables });
    }
  };
  const root = source.doc.contents;
  if (isMap(root)) {
    for (const pair of root.items) {
      if (isScalar(pair.key) && SHELL_KEYS.has(String(pair.key.value))) continue;
      visitNode(pair.value);
    }
  } else {
    visitNode(root);
  }
  return { problems: state.problems, substitutions: state.substitutions };
}

interface SubstituteState extends PlaceholderResult {
  source: YamlSource;
  resolve: ResolveVariable;
  /** Placeholders seen so far in the file. */
  count: number;
}

/** The value with its placeholders replaced; each variable used is added to `variables`. */
function substitute(value: string, [start, end]: [number, number], state: SubstituteState, variables: Substitution['variables']): string {
  const { source, problems } = state;
  let cursor = start;
  return value.replace(PLACEHOLDER, (whole: string, name: string | undefined) => {
    if (whole === '$${') return '${';
    // Point at the placeholder itself when the scalar's source spells it as written (no escapes);
    // the search stays inside the scalar, so a file of many placeholders is read once.
    const found = cursor < end ? source.text.slice(cursor, end).indexOf(whole) : -1;
    const inside = found >= 0;
    const offset = inside ? cursor + found : start;
    if (inside) cursor = offset + whole.length;
    const position = positionOf(source, offset);
    state.count++;
    if (state.count > MAX_PLACEHOLDERS) {
      if (state.count === MAX_PLACEHOLDERS + 1) {
        problems.push({
          ...position,
          message: `more than ${MAX_PLACEHOLDERS} \${…} placeholders: an experiment needs a few; write the values themselves`,
          code: 'too-many-placeholders',
        });
      }
      return whole;
    }
    const trimmed = (name ?? '').trim();
    if (!NAME.test(trimmed)) {
      problems.push({
        ...position,
        message: `invalid placeholder ${whole}: a placeholder is \${NAME}, NAME made of letters, digits and _`,
        code: 'placeholder-invalid',
      });
      return whole;
    }
    if (SECRET_LIKE.test(trimmed)) {
      problems.push({
        ...position,
        message: `placeholder \${${trimmed}} names a secret: its value would be written into the plan and the report; secrets reach the sandbox by name only`,
        code: 'placeholder-secret',
      });
      return whole;
    }
    const resolved = state.resolve(trimmed);
    if (resolved === undefined) {
      problems.push({ ...position, message: unresolvedMessage(trimmed), code: 'placeholder-unresolved' });
      return whole;
    }
    variables.push({ name: trimmed, value: resolved });
    return resolved;
  });
}
