// The container image reference grammar (distribution/reference, what docker and podman accept):
//   [registry[:port]/]path[:tag][@digest]
// path components lowercase letters and digits joined by `.`, `_`, `__` or dashes; the registry a
// host name (any case), an IPv4 address or a bracketed IPv6 address, with an optional port; a tag up
// to 128 word characters, dots and dashes; a digest `algorithm:hex` with at least 32 hex digits.

const alphanumeric = '[a-z0-9]+';
const separator = '(?:[._]|__|-+)';
const pathComponent = `${alphanumeric}(?:${separator}${alphanumeric})*`;
const domainComponent = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const host = `(?:${domainComponent}(?:\\.${domainComponent})*|\\[[a-fA-F0-9:]+\\])`;
const registry = `${host}(?::[0-9]+)?`;
const name = `(?:${registry}/)?${pathComponent}(?:/${pathComponent})*`;
const tag = '[\\w][\\w.-]{0,127}';
const digest = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}';

/** A whole image reference; also valid as a JSON Schema `pattern`. */
export const IMAGE_REFERENCE_PATTERN = new RegExp(`^${name}(?::${tag})?(?:@${digest})?$`);

/** The name part (registry and path) is at most this long, as in the grammar's implementation. */
export const MAX_IMAGE_NAME_LENGTH = 255;
/** Name, tag and a long digest fit; the pattern is tried only on references up to this length. */
export const MAX_IMAGE_REFERENCE_LENGTH = 512;

/** The registry and path of a reference, without its tag and digest. */
export function imageName(reference: string): string {
  const withoutDigest = reference.split('@')[0]!;
  const lastSlash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.lastIndexOf(':');
  return colon > lastSlash ? withoutDigest.slice(0, colon) : withoutDigest;
}
