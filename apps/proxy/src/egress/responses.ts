// What the egress proxy answers when it does not forward: an injected fault, a governance block, an
// upstream it could not reach. Each answer looks like the real failure, shaped per client so that
// the text reaches the agent's terminal: git prints only text/plain bodies ("remote: …"), npm prints
// the reason phrase and a JSON body's `error`, curl and fetch scripts print the body or statusText.
import type { IncomingHttpHeaders } from 'node:http';

export interface ShapedResponse {
  status: number;
  reason: string;
  headers: Record<string, string>;
  body: string;
}

export type ClientFlavor = 'git' | 'npm' | 'github' | 'generic';

/** git and npm are told apart by what they send; the GitHub API by its host (api.github.com, GHE). */
export function clientFlavor(host: string, headers: IncomingHttpHeaders): ClientFlavor {
  const agent = String(headers['user-agent'] ?? '').toLowerCase();
  if (/^(git|jgit)\//.test(agent)) return 'git';
  if (/^(npm|pnpm|yarn)\//.test(agent) || headers['npm-command'] !== undefined) return 'npm';
  if (host.split('.').includes('github')) return 'github';
  return 'generic';
}

/** Reason phrases and header values take printable ASCII only; anything else would fail writeHead. */
export function headerSafe(text: string, max = 300): string {
  return text.replace(/[^\x20-\x7e]/g, '?').slice(0, max);
}

function json(status: number, reason: string, value: unknown, headers: Record<string, string> = {}): ShapedResponse {
  return { status, reason: headerSafe(reason), headers: { 'content-type': 'application/json; charset=utf-8', ...headers }, body: JSON.stringify(value) + '\n' };
}

function text(status: number, reason: string, body: string, headers: Record<string, string> = {}): ShapedResponse {
  return { status, reason: headerSafe(reason), headers: { 'content-type': 'text/plain; charset=utf-8', ...headers }, body: body + '\n' };
}

/** RFC 9209 Proxy-Status, the standard way a proxy says why it answered itself. */
function proxyStatus(error: string, details: string): Record<string, string> {
  return { 'proxy-status': `intutic; error=${error}; details="${headerSafe(details).replace(/["\\]/g, "'")}"` };
}

/** egress.dns_fail: the answer a forward proxy gives for a host that does not resolve. */
export function dnsFailResponse(host: string, flavor: ClientFlavor, canary: string): ShapedResponse {
  const message = `getaddrinfo ENOTFOUND ${host} (${canary})`;
  const headers = { ...proxyStatus('dns_error', message), connection: 'close' };
  const reason = `Bad Gateway: ${message}`;
  if (flavor === 'git') return text(502, reason, message, headers);
  return json(502, reason, { error: message, code: 'ENOTFOUND', syscall: 'getaddrinfo', hostname: host }, headers);
}

/** egress.credential_401: the host's own 401 for a revoked credential. */
export function credential401Response(host: string, flavor: ClientFlavor, canary: string): ShapedResponse {
  const reason = `Unauthorized (${canary})`;
  const github = host.split('.').includes('github');
  switch (flavor) {
    case 'git': {
      const realm = github ? 'GitHub' : host;
      const message = github
        ? `Invalid username or token. Password authentication is not supported for Git operations. (${canary})`
        : `Authentication failed: the credential for ${host} was rejected (${canary})`;
      return text(401, reason, message, { 'www-authenticate': `Basic realm="${realm}"` });
    }
    case 'npm':
      // No WWW-Authenticate here on purpose: npm replaces the error with a canned "token seems to be
      // invalid" line (dropping the message) whenever that header names Bearer or Basic.
      return json(401, reason, { error: `Unable to authenticate, your authentication token seems to be invalid (${canary})` });
    case 'github':
      return json(
        401,
        reason,
        { message: `Bad credentials (${canary})`, documentation_url: 'https://docs.github.com/rest', status: '401' },
        { 'www-authenticate': 'Bearer realm="GitHub"', 'x-github-media-type': 'github.v3; format=json' },
      );
    case 'generic':
      return json(
        401,
        reason,
        { error: 'unauthorized', message: `Bad credentials: the credential was revoked (${canary})` },
        { 'www-authenticate': `Bearer realm="${host}", error="invalid_token", error_description="the credential was revoked (${canary})"` },
      );
  }
}

/** A rule (or a default-deny policy) refused the host. Governance, not a fault: no canary. */
export function blockedResponse(host: string, flavor: ClientFlavor, decision: { decision: string; rule: string | null; reason: string }): ShapedResponse {
  const verb = decision.decision === 'hold' ? 'HELD' : 'BLOCKED';
  const by = decision.rule === null ? 'by policy' : `by rule ${decision.rule}`;
  const message = `[Intutic Governance] ${verb}: egress to ${host} ${by}: ${decision.reason}`;
  const headers = proxyStatus('http_request_denied', message);
  if (flavor === 'git') return text(403, 'Forbidden', message, headers);
  return json(403, 'Forbidden', { error: message, decision: decision.decision, rule: decision.rule }, headers);
}

const PROXY_ERRORS: Record<string, string> = {
  ENOTFOUND: 'dns_error',
  EAI_AGAIN: 'dns_timeout',
  ECONNREFUSED: 'connection_refused',
  ETIMEDOUT: 'connection_timeout',
  ECONNRESET: 'connection_terminated',
  EHOSTUNREACH: 'destination_ip_unroutable',
  ENETUNREACH: 'destination_ip_unroutable',
};

export function errorCode(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : 'ERROR';
}

/** A real upstream failure (not injected): 502 with what went wrong, or 504 on a timeout. */
export function upstreamFailedResponse(host: string, port: number, flavor: ClientFlavor, error: unknown): ShapedResponse {
  const code = errorCode(error);
  const detail = error instanceof Error ? error.message : String(error);
  const message = `upstream ${host}:${port} failed: ${detail}`;
  const tls = code.startsWith('ERR_TLS') || /CERT|SELF_SIGNED/.test(code);
  if (code === 'EGRESS_FORBIDDEN') {
    const headers = { ...proxyStatus('destination_ip_prohibited', detail), connection: 'close' };
    return flavor === 'git' ? text(403, 'Forbidden', detail, headers) : json(403, 'Forbidden', { error: detail, code }, headers);
  }
  const status = code === 'ETIMEDOUT' ? 504 : 502;
  const headers = { ...proxyStatus(tls ? 'tls_certificate_error' : (PROXY_ERRORS[code] ?? 'proxy_internal_error'), message), connection: 'close' };
  const reason = status === 504 ? 'Gateway Timeout' : 'Bad Gateway';
  if (flavor === 'git') return text(status, reason, message, headers);
  return json(status, reason, { error: message, code }, headers);
}
