// The per-run certificate authority that lets the egress proxy answer inside a CONNECT tunnel.
// One CA key and certificate per handler (the sandbox trusts its PEM); one leaf certificate per host,
// made on first use and cached, all leaves sharing one key so a new host costs a signature, not a keygen.
// The keys are ECDSA P-256: a pair takes well under a millisecond, where the RSA-2048 pairs this used
// to make cost 0.1–0.3 s of CPU each at every proxy start, that is at every repetition. Every TLS client
// an agent uses (OpenSSL, GnuTLS, Node, Go, Python) accepts them. The certificates are encoded here
// (der.ts) and signed by Node's crypto: no certificate library, whose loading a proxy start would pay.
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isIP, isIPv4 } from 'node:net';
import { createSecureContext, type SecureContext } from 'node:tls';
import {
  bitString,
  boolean,
  explicit,
  implicit,
  namedBits,
  octetString,
  oid,
  sequence,
  set,
  smallInteger,
  unsignedInteger,
  utcTime,
  utf8String,
} from './der.ts';
import { ipv6Words } from '@intutic/governance';

const MAX_CACHED_LEAVES = 1000;
const OID = {
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  commonName: '2.5.4.3',
  organizationName: '2.5.4.10',
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  authorityKeyIdentifier: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
};
/** keyUsage's named bits (RFC 5280 4.2.1.3). */
const KEY_USAGE = { digitalSignature: 0, keyCertSign: 5, cRLSign: 6 };

export interface CertificateAuthority {
  caCertPem: string;
  /** The TLS context to present for `host` (a name or an IP address). */
  contextFor(host: string): SecureContext;
  /** The leaf certificate PEM for `host` (for tests and diagnostics). */
  leafPemFor(host: string): string;
}

interface KeyPair {
  privateKey: KeyObject;
  /** The SubjectPublicKeyInfo, DER, as the certificate carries it. */
  spki: Buffer;
  /** The key identifier: SHA-1 of the SubjectPublicKeyInfo (RFC 7093, method 4). */
  id: Buffer;
}

function ecKeyPair(): KeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  return { privateKey, spki, id: createHash('sha1').update(spki).digest() };
}

/**
 * Positive, unique-enough serial: browsers and OpenSSL reject reused serials under one issuer. Its
 * first byte is kept in 0x40-0x7f, so the INTEGER is positive and 16 bytes long, never re-encoded shorter.
 */
export function serialNumber(): Buffer {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x3f) | 0x40;
  return bytes;
}

/** The 4 or 16 bytes of an IP address, as a subjectAltName's iPAddress carries them. */
export function ipBytes(ip: string): Buffer {
  if (isIPv4(ip)) return Buffer.from(ip.split('.').map(Number));
  const bytes = Buffer.alloc(16);
  ipv6Words(ip).forEach((word, i) => bytes.writeUInt16BE(word, 2 * i));
  return bytes;
}

/** A Name of the given attributes, one per RelativeDistinguishedName. */
const name = (attributes: ReadonlyArray<readonly [string, string]>): Buffer =>
  sequence(...attributes.map(([type, value]) => set(sequence(oid(type), utf8String(value)))));

/** An Extension: its id, critical when said (DEFAULT FALSE is left out), and its value's DER. */
const extension = (id: string, value: Buffer, critical = false): Buffer => sequence(oid(id), ...(critical ? [boolean(true)] : []), octetString(value));

interface CertificateFields {
  subject: Buffer;
  issuer: Buffer;
  days: number;
  subjectKey: KeyPair;
  extensions: Buffer[];
}

/** An X.509 v3 certificate signed with ECDSA-SHA256, as PEM: encoded here (der.ts), signed by Node's crypto. */
function issueCertificate(fields: CertificateFields, issuerKey: KeyObject): string {
  // Backdated a day so a sandbox whose clock lags the host's still accepts it.
  const notBefore = new Date(Date.now() - 24 * 3600 * 1000);
  const notAfter = new Date(notBefore.getTime() + fields.days * 24 * 3600 * 1000);
  const algorithm = sequence(oid(OID.ecdsaWithSha256));
  const tbs = sequence(
    explicit(0, smallInteger(2)),
    unsignedInteger(serialNumber()),
    algorithm,
    fields.issuer,
    sequence(utcTime(notBefore), utcTime(notAfter)),
    fields.subject,
    fields.subjectKey.spki,
    explicit(3, sequence(...fields.extensions, extension(OID.subjectKeyIdentifier, octetString(fields.subjectKey.id)))),
  );
  const der = sequence(tbs, algorithm, bitString(sign('sha256', tbs, issuerKey)));
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}

export function createCertificateAuthority(options: { commonName?: string } = {}): CertificateAuthority {
  const caKey = ecKeyPair();
  const leafKey = ecKeyPair();
  const leafKeyPem = leafKey.privateKey.export({ type: 'pkcs8', format: 'pem' });

  const caName = name([
    [OID.commonName, options.commonName ?? 'intutic chaos per-run CA'],
    [OID.organizationName, 'intutic chaos'],
  ]);
  const caCertPem = issueCertificate(
    {
      subject: caName,
      issuer: caName,
      days: 30,
      subjectKey: caKey,
      extensions: [
        extension(OID.basicConstraints, sequence(boolean(true)), true),
        extension(OID.keyUsage, namedBits([KEY_USAGE.digitalSignature, KEY_USAGE.keyCertSign, KEY_USAGE.cRLSign]), true),
      ],
    },
    caKey.privateKey,
  );

  const leaves = new Map<string, { pem: string; context: SecureContext }>();

  function leafFor(host: string): { pem: string; context: SecureContext } {
    const key = host.toLowerCase();
    const cached = leaves.get(key);
    if (cached) return cached;
    // subjectAltName: an iPAddress [7] for an address, a dNSName [2] for a name.
    const altName = isIP(key) ? implicit(7, ipBytes(key)) : implicit(2, Buffer.from(key, 'ascii'));
    const pem = issueCertificate(
      {
        subject: name([[OID.commonName, key.slice(0, 64)]]),
        issuer: caName,
        // Leaves stay under 398 days (clients reject longer) and outlive any run.
        days: 30,
        subjectKey: leafKey,
        extensions: [
          extension(OID.basicConstraints, sequence()),
          extension(OID.keyUsage, namedBits([KEY_USAGE.digitalSignature]), true),
          extension(OID.extKeyUsage, sequence(oid(OID.serverAuth))),
          extension(OID.subjectAltName, sequence(altName)),
          extension(OID.authorityKeyIdentifier, sequence(implicit(0, caKey.id))),
        ],
      },
      caKey.privateKey,
    );
    // The chain goes with the leaf so clients that verify against the CA alone see the whole path.
    const context = createSecureContext({ key: leafKeyPem, cert: pem + caCertPem });
    const leaf = { pem, context };
    // Bounded, oldest first out: a client inventing SNI names must not grow the proxy without end.
    if (leaves.size >= MAX_CACHED_LEAVES) leaves.delete(leaves.keys().next().value!);
    leaves.set(key, leaf);
    return leaf;
  }

  return {
    caCertPem,
    contextFor: (host) => leafFor(host).context,
    leafPemFor: (host) => leafFor(host).pem,
  };
}
