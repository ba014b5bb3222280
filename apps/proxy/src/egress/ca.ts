// The per-run certificate authority that lets the egress proxy answer inside a CONNECT tunnel.
// One CA key and certificate per handler (the sandbox trusts its PEM); one leaf certificate per host,
// made on first use and cached, all leaves sharing one key so a new host costs a signature, not a keygen.
// The keys are ECDSA P-256: a pair takes well under a millisecond, where the RSA-2048 pairs this used
// to make cost 0.1–0.3 s of CPU each at every proxy start, that is at every repetition. Every TLS client
// an agent uses (OpenSSL, GnuTLS, Node, Go, Python) accepts them.
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import { createSecureContext, type SecureContext } from 'node:tls';
import forge from 'node-forge';

const MAX_CACHED_LEAVES = 1000;
const ECDSA_WITH_SHA256 = '1.2.840.10045.4.3.2';
const SUBJECT_KEY_IDENTIFIER = '2.5.29.14';
const { asn1 } = forge;
// Present at run time, missing from @types/node-forge.
const encodeExtensions = (forge.pki as unknown as { certificateExtensionsToAsn1(extensions: unknown[]): forge.asn1.Asn1 }).certificateExtensionsToAsn1;

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

/** Positive, unique-enough serial: browsers and OpenSSL reject reused serials under one issuer. */
function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = bytes[0]! & 0x7f;
  return bytes.toString('hex');
}

type Attributes = forge.pki.CertificateField[];
type Extension = Record<string, unknown>;

interface CertificateFields {
  subject: Attributes;
  issuer: Attributes;
  days: number;
  subjectKey: KeyPair;
  extensions: Extension[];
}

const binary = (bytes: Buffer): string => bytes.toString('binary');
const algorithm = () =>
  asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OID, false, asn1.oidToDer(ECDSA_WITH_SHA256).getBytes()),
  ]);

/**
 * An X.509 v3 certificate signed with ECDSA-SHA256, as PEM. forge encodes the names and extensions
 * (its certificate object knows only RSA keys, so the rest is put together here); Node's crypto signs.
 */
function issueCertificate(fields: CertificateFields, issuerKey: KeyObject): string {
  // Only for forge's encoders of names and extensions; the key identifier is given, not derived from an RSA key.
  const named = forge.pki.createCertificate();
  named.setSubject(fields.subject);
  named.setIssuer(fields.issuer);
  const ski = { id: SUBJECT_KEY_IDENTIFIER, value: asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OCTETSTRING, false, binary(fields.subjectKey.id)) };
  named.setExtensions([...fields.extensions, ski]);
  // Backdated a day so a sandbox whose clock lags the host's still accepts it.
  const notBefore = new Date(Date.now() - 24 * 3600 * 1000);
  const notAfter = new Date(notBefore.getTime() + fields.days * 24 * 3600 * 1000);
  const tbs = asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [
    asn1.create(asn1.Class.CONTEXT_SPECIFIC, 0, true, [asn1.create(asn1.Class.UNIVERSAL, asn1.Type.INTEGER, false, asn1.integerToDer(2).getBytes())]),
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.INTEGER, false, forge.util.hexToBytes(serialNumber())),
    algorithm(),
    forge.pki.distinguishedNameToAsn1(named.issuer),
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [
      asn1.create(asn1.Class.UNIVERSAL, asn1.Type.UTCTIME, false, asn1.dateToUtcTime(notBefore)),
      asn1.create(asn1.Class.UNIVERSAL, asn1.Type.UTCTIME, false, asn1.dateToUtcTime(notAfter)),
    ]),
    forge.pki.distinguishedNameToAsn1(named.subject),
    asn1.fromDer(binary(fields.subjectKey.spki)),
    encodeExtensions(named.extensions as unknown[]),
  ]);
  const tbsDer = Buffer.from(asn1.toDer(tbs).getBytes(), 'binary');
  const signature = sign('sha256', tbsDer, issuerKey);
  const certificate = asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [
    tbs,
    algorithm(),
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.BITSTRING, false, `\0${binary(signature)}`),
  ]);
  const der = Buffer.from(asn1.toDer(certificate).getBytes(), 'binary');
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}

export function createCertificateAuthority(options: { commonName?: string } = {}): CertificateAuthority {
  const caKey = ecKeyPair();
  const leafKey = ecKeyPair();
  const leafKeyPem = leafKey.privateKey.export({ type: 'pkcs8', format: 'pem' });

  const caSubject = [
    { name: 'commonName', value: options.commonName ?? 'intutic chaos per-run CA' },
    { name: 'organizationName', value: 'intutic chaos' },
  ];
  const caCertPem = issueCertificate(
    {
      subject: caSubject,
      issuer: caSubject,
      days: 30,
      subjectKey: caKey,
      extensions: [
        { name: 'basicConstraints', cA: true, critical: true },
        { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
      ],
    },
    caKey.privateKey,
  );

  const leaves = new Map<string, { pem: string; context: SecureContext }>();

  function leafFor(host: string): { pem: string; context: SecureContext } {
    const key = host.toLowerCase();
    const cached = leaves.get(key);
    if (cached) return cached;
    const altName = isIP(key) ? { type: 7, ip: key } : { type: 2, value: key };
    const pem = issueCertificate(
      {
        subject: [{ name: 'commonName', value: key.slice(0, 64) }],
        issuer: caSubject,
        // Leaves stay under 398 days (clients reject longer) and outlive any run.
        days: 30,
        subjectKey: leafKey,
        extensions: [
          { name: 'basicConstraints', cA: false },
          { name: 'keyUsage', digitalSignature: true, critical: true },
          { name: 'extKeyUsage', serverAuth: true },
          { name: 'subjectAltName', altNames: [altName] },
          { name: 'authorityKeyIdentifier', keyIdentifier: binary(caKey.id) },
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
