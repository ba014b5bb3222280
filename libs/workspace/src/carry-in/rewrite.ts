// Path rewriting for carried-in settings and gate scripts: the project's absolute path becomes /work,
// so `node /Users/you/proj/.intutic/hooks/x.js` runs as `node /work/.intutic/hooks/x.js` in the sandbox.
// A path is only replaced as a whole path component: /home/u/proj never rewrites /home/u/project.

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Replace every whole occurrence of any of `fromPaths` (longest first) by `to`. */
export function rewriteProjectPaths(text: string, fromPaths: readonly string[], to: string): string {
  const roots = [...new Set(fromPaths.map((p) => p.replace(/\/+$/, '')).filter((p) => p.length > 1))].sort((a, b) => b.length - a.length);
  if (roots.length === 0) return text;
  // Also the JSON-escaped spelling ("\/home\/u\/proj"), which some writers emit.
  const variants = roots.flatMap((r) => [r, r.replaceAll('/', '\\/')]);
  const pattern = new RegExp(`(?:${variants.map(escapeRegExp).join('|')})(?![A-Za-z0-9._~+-])`, 'g');
  return text.replace(pattern, (match) => (match.includes('\\/') ? to.replaceAll('/', '\\/') : to));
}

/** Text we may rewrite: valid UTF-8 without NUL bytes. Anything else is copied byte for byte. */
export function decodeText(bytes: Buffer): string | null {
  if (bytes.includes(0)) return null;
  const text = bytes.toString('utf8');
  return Buffer.from(text, 'utf8').equals(bytes) ? text : null;
}
