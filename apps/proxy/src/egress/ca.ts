// The per-run certificate authority that lets the egress proxy answer inside a CONNECT tunnel.
// One CA key and certificate per handler (the sandbox trusts its PEM); one leaf certificate per host,
// made on first use and cached, all leaves sharing one key so a new host costs a signature, not a keygen.
import { createPrivateKey, generateKeyPair, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import { createSecureContext, type SecureContext } from 'node:tls';
import { promisify } from 'node:util';
import forge from 'node-forge';

const generateRsa = promisify(generateKeyPair);
const MAX_CACHED_LEAVES = 1000;

export interface CertificateAuthority {
  caCertPem: string;
  /** The TLS context to present for `host` (a name or an IP address). */
  contextFor(host: string): SecureContext;
  /** The leaf certificate PEM for `host` (for tests and diagnostics). */
  leafPemFor(host: string): string;
}

async function rsaKeyPair(): Promise<{ privateKey: string; publicKey: string }> {
  return generateRsa('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
}

/** Positive, unique-enough serial: browsers and OpenSSL reject reused serials under one issuer. */
function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = bytes[0]! & 0x7f;
  return bytes.toString('hex');
}

/**
 * forge builds the certificate; Node's crypto signs it. forge's pure-JS RSA takes ~50 ms per
 * signature and would stall every open stream whenever a new host is first intercepted.
 */
function signCertificate(cert: forge.pki.Certificate, caKey: KeyObject): void {
  const oid = forge.pki.oids.sha256WithRSAEncryption!;
  cert.signatureOid = oid;
  cert.siginfo.algorithmOid = oid;
  // Present at run time, missing from @types/node-forge.
  const tbs = (forge.pki as unknown as { getTBSCertificate(c: forge.pki.Certificate): forge.asn1.Asn1 }).getTBSCertificate(cert);
  cert.tbsCertificate = tbs;
  const der = Buffer.from(forge.asn1.toDer(tbs).getBytes(), 'binary');
  cert.signature = sign('sha256', der, caKey).toString('binary');
}

function validity(cert: forge.pki.Certificate, days: number): void {
  // Backdated a day so a sandbox whose clock lags the host's still accepts it.
  const from = new Date(Date.now() - 24 * 3600 * 1000);
  cert.validity.notBefore = from;
  cert.validity.notAfter = new Date(from.getTime() + days * 24 * 3600 * 1000);
}

export async function createCertificateAuthority(options: { commonName?: string } = {}): Promise<CertificateAuthority> {
  const [caPair, leafPair] = await Promise.all([rsaKeyPair(), rsaKeyPair()]);
  const caKey = createPrivateKey(caPair.privateKey);
  const caPublic = forge.pki.publicKeyFromPem(caPair.publicKey);
  const leafPublic = forge.pki.publicKeyFromPem(leafPair.publicKey);

  const caSubject = [
    { name: 'commonName', value: options.commonName ?? 'intutic chaos per-run CA' },
    { name: 'organizationName', value: 'intutic chaos' },
  ];
  const caCert = forge.pki.createCertificate();
  caCert.publicKey = caPublic;
  caCert.serialNumber = serialNumber();
  validity(caCert, 30);
  caCert.setSubject(caSubject);
  caCert.setIssuer(caSubject);
  caCert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  signCertificate(caCert, caKey);
  const caCertPem = forge.pki.certificateToPem(caCert);

  const leaves = new Map<string, { pem: string; context: SecureContext }>();

  function leafFor(host: string): { pem: string; context: SecureContext } {
    const key = host.toLowerCase();
    const cached = leaves.get(key);
    if (cached) return cached;
    const cert = forge.pki.createCertificate();
    cert.publicKey = leafPublic;
    cert.serialNumber = serialNumber();
    // Leaves stay under 398 days (clients reject longer) and outlive any run.
    validity(cert, 30);
    cert.setSubject([{ name: 'commonName', value: key.slice(0, 64) }]);
    cert.setIssuer(caSubject);
    const altName = isIP(key) ? { type: 7, ip: key } : { type: 2, value: key };
    cert.setExtensions([
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [altName] },
      { name: 'authorityKeyIdentifier', keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes() },
    ]);
    signCertificate(cert, caKey);
    const pem = forge.pki.certificateToPem(cert);
    // The chain goes with the leaf so clients that verify against the CA alone see the whole path.
    const context = createSecureContext({ key: leafPair.privateKey, cert: pem + caCertPem });
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
