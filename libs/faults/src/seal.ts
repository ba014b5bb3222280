// The canary as the plan file carries it: sealed, so `cat` or `grep E-INTUTIC-` in the sandbox never
// shows it. This is obfuscation, not secrecy (the gates run as the agent and must unseal it): the
// literal reaches the agent only inside an injected error. Node built-ins only (the gates load it).

export const SEALED_PREFIX = 'sealed:';
// A fixed pad: the point is that no readable file holds the literal, not that the key is secret.
const PAD = Buffer.from('6b1f93c4e05a2d7788c13fb9a4d25e0f1c6a83f7d94b20e5a7316cf08e2bd459', 'hex');

function xor(bytes: Buffer): Buffer {
  return Buffer.from(bytes.map((b, i) => b ^ PAD[i % PAD.length]!));
}

export function sealCanary(canary: string): string {
  return SEALED_PREFIX + xor(Buffer.from(canary, 'utf8')).toString('hex');
}

/** The literal canary from either form; a value that is not sealed is returned as it is. */
export function unsealCanary(value: string): string {
  if (!value.startsWith(SEALED_PREFIX)) return value;
  const hex = value.slice(SEALED_PREFIX.length);
  if (!/^(?:[0-9a-f]{2})+$/.test(hex)) return value;
  return xor(Buffer.from(hex, 'hex')).toString('utf8');
}
