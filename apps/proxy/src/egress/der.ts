// The few pieces of DER (X.690) an X.509 certificate of the per-run CA is made of (ca.ts): each
// function returns one whole encoded element, tag and length included, so a certificate is written
// as nested calls in the order RFC 5280 gives its fields.
const TAG = {
  boolean: 0x01,
  integer: 0x02,
  bitString: 0x03,
  octetString: 0x04,
  oid: 0x06,
  utf8String: 0x0c,
  utcTime: 0x17,
  sequence: 0x30,
  set: 0x31,
} as const;

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let rest = n; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** One element: its tag, its length, its content. */
export function element(tag: number, content: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), length(content.length), content]);
}

export const sequence = (...items: Buffer[]): Buffer => element(TAG.sequence, Buffer.concat(items));
export const set = (...items: Buffer[]): Buffer => element(TAG.set, Buffer.concat(items));
export const octetString = (bytes: Buffer): Buffer => element(TAG.octetString, bytes);
export const utf8String = (text: string): Buffer => element(TAG.utf8String, Buffer.from(text, 'utf8'));
export const boolean = (value: boolean): Buffer => element(TAG.boolean, Buffer.from([value ? 0xff : 0x00]));
/** [n] EXPLICIT: the element wrapped in a constructed context-specific tag. */
export const explicit = (n: number, inner: Buffer): Buffer => element(0xa0 | n, inner);
/** [n] IMPLICIT on a primitive: the bytes under a context-specific tag of their own. */
export const implicit = (n: number, bytes: Buffer): Buffer => element(0x80 | n, bytes);

/** A non-negative INTEGER from its big-endian bytes, in the minimal form DER requires. */
export function unsignedInteger(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const trimmed = bytes.subarray(start);
  // A leading 1 bit would read as negative: a zero byte goes before it.
  return element(TAG.integer, trimmed[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}

export const smallInteger = (n: number): Buffer => unsignedInteger(Buffer.from([n]));

export function oid(dotted: string): Buffer {
  const [first, second, ...rest] = dotted.split('.').map(Number);
  const bytes = [40 * first! + second!];
  for (const arc of rest) {
    const chunk = [arc & 0x7f];
    for (let value = Math.floor(arc / 128); value > 0; value = Math.floor(value / 128)) chunk.unshift(0x80 | (value & 0x7f));
    bytes.push(...chunk);
  }
  return element(TAG.oid, Buffer.from(bytes));
}

/** A BIT STRING of whole bytes (a signature, a key). */
export const bitString = (bytes: Buffer): Buffer => element(TAG.bitString, Buffer.concat([Buffer.from([0]), bytes]));

/** A BIT STRING of named bits (bit 0 is the first byte's high bit), trailing zero bits left out as DER requires. */
export function namedBits(bits: readonly number[]): Buffer {
  const highest = Math.max(...bits);
  const bytes = Buffer.alloc(Math.floor(highest / 8) + 1);
  for (const bit of bits) bytes[Math.floor(bit / 8)]! |= 0x80 >> (bit % 8);
  return element(TAG.bitString, Buffer.concat([Buffer.from([7 - (highest % 8)]), bytes]));
}

/** UTCTime, YYMMDDHHMMSSZ (dates from 1950 to 2049, as RFC 5280 says for it). */
export function utcTime(date: Date): Buffer {
  const two = (n: number): string => String(n).padStart(2, '0');
  const text =
    two(date.getUTCFullYear() % 100) +
    two(date.getUTCMonth() + 1) +
    two(date.getUTCDate()) +
    two(date.getUTCHours()) +
    two(date.getUTCMinutes()) +
    two(date.getUTCSeconds()) +
    'Z';
  return element(TAG.utcTime, Buffer.from(text, 'ascii'));
}
