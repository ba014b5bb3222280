// Egress never reaches inside, whatever the notation: the address classifier against every way an
// address can be written (inet_aton forms, IPv4 inside IPv6, brackets, zone ids, trailing dots), the
// private-host allowances (a name opens private ranges only, loopback and metadata only by address),
// and host rules written as an address or a CIDR matching an IP-literal destination in any notation.
// Pure: no socket is opened here.
import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { isIntuticError } from '@intutic/errors';
import { decideEgress, hostRuleMatches, parseIpLiteral, type Policy, type Rule } from '@intutic/governance';
import { classifyAddress, createDestinationGuard, forbiddenDestination, parseAllowances, type Resolver } from '../src/egress/guard.ts';
import { parseAbsoluteUrl, parseConnectTarget } from '../src/egress/target.ts';

const noOwnAddresses = () => [];

/** [as written, canonical address, the refusal's label (a regex), or null for a public address]. */
const TABLE: Array<[string, string, RegExp | null]> = [
  // RFC 1918, the engine's bridges, CGNAT, the other private IPv4 ranges
  ['10.0.0.1', '10.0.0.1', /private \(RFC 1918\)/],
  ['10.255.255.255', '10.255.255.255', /RFC 1918/],
  ['172.16.0.1', '172.16.0.1', /RFC 1918/],
  ['172.17.0.2', '172.17.0.2', /container bridges/],
  ['172.31.255.254', '172.31.255.254', /RFC 1918/],
  ['192.168.1.1', '192.168.1.1', /RFC 1918/],
  ['100.64.0.1', '100.64.0.1', /CGNAT/],
  ['100.127.255.255', '100.127.255.255', /CGNAT/],
  ['192.0.0.8', '192.0.0.8', /IETF protocol/],
  ['198.18.0.1', '198.18.0.1', /benchmarking/],
  ['198.19.255.255', '198.19.255.255', /benchmarking/],
  // link-local and cloud metadata
  ['169.254.169.254', '169.254.169.254', /link-local \(cloud metadata\)/],
  ['169.254.1.1', '169.254.1.1', /link-local/],
  ['100.100.100.200', '100.100.100.200', /cloud metadata/],
  ['fd00:ec2::254', 'fd00:ec2::254', /cloud metadata/],
  ['[FD00:EC2:0:0:0:0:0:254]', 'fd00:ec2::254', /cloud metadata/],
  ['fe80::1', 'fe80::1', /link-local/],
  ['fe80::1%eth0', 'fe80::1', /link-local/],
  ['[fe80::1%25eth0]', 'fe80::1', /link-local/],
  // unique local
  ['fc00::1', 'fc00::1', /unique local/],
  ['fd12:3456::1', 'fd12:3456::1', /unique local/],
  // loopback, unspecified, multicast, broadcast, reserved
  ['127.0.0.1', '127.0.0.1', /loopback/],
  ['127.9.9.9', '127.9.9.9', /loopback/],
  ['::1', '::1', /loopback/],
  ['[::1]', '::1', /loopback/],
  ['0:0:0:0:0:0:0:1', '::1', /loopback/],
  ['0.0.0.0', '0.0.0.0', /unspecified/],
  ['0', '0.0.0.0', /unspecified/],
  ['::', '::', /unspecified/],
  ['224.0.0.1', '224.0.0.1', /multicast/],
  ['239.255.255.250', '239.255.255.250', /multicast/],
  ['ff02::1', 'ff02::1', /multicast/],
  ['255.255.255.255', '255.255.255.255', /broadcast/],
  ['240.0.0.1', '240.0.0.1', /reserved/],
  // IPv4-mapped, -translated and -compatible IPv6
  ['::ffff:10.0.0.1', '::ffff:a00:1', /RFC 1918/],
  ['::ffff:a00:1', '::ffff:a00:1', /RFC 1918/],
  ['[::ffff:7f00:1]', '::ffff:7f00:1', /loopback/],
  ['::FFFF:127.0.0.1', '::ffff:7f00:1', /loopback/],
  ['0:0:0:0:0:ffff:10.0.0.1', '::ffff:a00:1', /RFC 1918/],
  ['0000:0000:0000:0000:0000:ffff:a9fe:a9fe', '::ffff:a9fe:a9fe', /cloud metadata/],
  ['::ffff:0:10.0.0.1', '::ffff:0:a00:1', /RFC 1918/],
  ['::10.0.0.1', '::a00:1', /RFC 1918/],
  ['::127.0.0.1', '::7f00:1', /loopback/],
  // NAT64 and 6to4 carrying a private or internal IPv4 address
  ['64:ff9b::10.0.0.1', '64:ff9b::a00:1', /RFC 1918/],
  ['64:ff9b::a9fe:a9fe', '64:ff9b::a9fe:a9fe', /cloud metadata/],
  ['64:ff9b:1::c0a8:101', '64:ff9b:1::c0a8:101', /RFC 1918/],
  ['2002:a00:1::', '2002:a00:1::', /RFC 1918/],
  ['2002:7f00:1::1', '2002:7f00:1::1', /loopback/],
  ['[2002:a9fe:a9fe::]', '2002:a9fe:a9fe::', /cloud metadata/],
  // decimal, octal, hex and short IPv4 (inet_aton)
  ['2130706433', '127.0.0.1', /loopback/],
  ['167772161', '10.0.0.1', /RFC 1918/],
  ['3232235777', '192.168.1.1', /RFC 1918/],
  ['0177.0.0.1', '127.0.0.1', /loopback/],
  ['012.0.0.1', '10.0.0.1', /RFC 1918/],
  ['0251.0376.0251.0376', '169.254.169.254', /cloud metadata/],
  ['0x7f.1', '127.0.0.1', /loopback/],
  ['0x7f000001', '127.0.0.1', /loopback/],
  ['0xA9.0xFE.0xA9.0xFE', '169.254.169.254', /cloud metadata/],
  ['0XA9FEA9FE', '169.254.169.254', /cloud metadata/],
  ['0x7f.0.0.01', '127.0.0.1', /loopback/],
  ['127.1', '127.0.0.1', /loopback/],
  ['10.1', '10.0.0.1', /RFC 1918/],
  ['192.168.257', '192.168.1.1', /RFC 1918/],
  ['169.254.43518', '169.254.169.254', /cloud metadata/],
  ['0000000000000000000000177.1', '127.0.0.1', /loopback/],
  // trailing dots
  ['127.0.0.1.', '127.0.0.1', /loopback/],
  ['10.0.0.1.', '10.0.0.1', /RFC 1918/],
  ['2130706433.', '127.0.0.1', /loopback/],
  // public: allowed, in ordinary and odd notations alike
  ['8.8.8.8', '8.8.8.8', null],
  ['1.1.1.1', '1.1.1.1', null],
  ['93.184.216.34', '93.184.216.34', null],
  ['2606:4700:4700::1111', '2606:4700:4700::1111', null],
  ['[2001:4860:4860:0:0:0:0:8888]', '2001:4860:4860::8888', null],
  ['134744072', '8.8.8.8', null],
  ['0x08080808', '8.8.8.8', null],
  ['010.010.010.010', '8.8.8.8', null],
  ['8.8.2056', '8.8.8.8', null],
  ['0x1.0x1.0x1.0x1', '1.1.1.1', null],
  ['1.1', '1.0.0.1', null],
  ['8.8.8.8.', '8.8.8.8', null],
  ['::ffff:8.8.8.8', '::ffff:808:808', null],
  ['64:ff9b::808:808', '64:ff9b::808:808', null],
  ['2002:808:808::1', '2002:808:808::1', null],
  // the edges of the ranges
  ['172.15.255.255', '172.15.255.255', null],
  ['172.32.0.1', '172.32.0.1', null],
  ['100.63.255.255', '100.63.255.255', null],
  ['100.128.0.0', '100.128.0.0', null],
  ['11.0.0.1', '11.0.0.1', null],
  ['192.169.0.1', '192.169.0.1', null],
  ['198.17.255.255', '198.17.255.255', null],
  ['198.20.0.1', '198.20.0.1', null],
  ['169.253.255.255', '169.253.255.255', null],
  ['223.255.255.255', '223.255.255.255', null],
  ['fbff::1', 'fbff::1', null],
  ['fe00::1', 'fe00::1', null],
];

describe('the address classifier', () => {
  it.each(TABLE)('%s is %s: %s', (written, canonical, refusal) => {
    expect(parseIpLiteral(written)?.address).toBe(canonical);
    const found = classifyAddress(written, noOwnAddresses);
    if (refusal === null) expect(found).toEqual([]);
    else expect(found?.map((r) => r.label).join('; ')).toMatch(refusal);
  });

  it.each([
    'registry.example.org',
    'localhost',
    'a.b.c.d',
    '1e100.net',
    '0x',
    '1..2',
    '08.1.1.1',
    '4294967296',
    '256.1.1.1',
    '1.2.3.4.5',
    '1.16777216',
    '0x100000000',
    ' 127.1 x',
  ])('%j is not an address (a name is decided after it resolves)', (written) => {
    expect(parseIpLiteral(written)).toBeNull();
    expect(classifyAddress(written, noOwnAddresses)).toBeNull();
    expect(forbiddenDestination(written)).toBeNull();
  });

  it("refuses this machine's own addresses, however they are written, even inside a private range", () => {
    const own = () => ['172.17.0.1', '203.0.113.9', 'fe80::1'];
    expect(classifyAddress('203.0.113.9', own)?.map((r) => r.tier)).toEqual(['own']);
    expect(classifyAddress('::ffff:cb00:7109', own)?.map((r) => r.tier)).toEqual(['own']);
    expect(classifyAddress('3405803785', own)?.map((r) => r.tier)).toEqual(['own']);
    expect(classifyAddress('172.17.0.1', own)?.map((r) => r.tier)).toEqual(['own']);
    expect(classifyAddress('203.0.113.10', own)).toEqual([]);
  });

  it('says why, naming the address inside an IPv6 one', () => {
    const guard = createDestinationGuard({ ownAddresses: noOwnAddresses });
    expect(guard.refusal('::ffff:a00:1', '::ffff:a00:1')).toBe('::ffff:a00:1 (10.0.0.1) is a private (RFC 1918) address');
    expect(guard.refusal('0x7f.1', '0x7f.1')).toBe('127.0.0.1 is a loopback address');
    expect(guard.refusal('8.8.8.8', '8.8.8.8')).toBeNull();
  });
});

describe('CONNECT targets and absolute URLs carry the canonical address', () => {
  it.each([
    ['0x7f.1:443', '127.0.0.1'],
    ['2130706433:80', '127.0.0.1'],
    ['[::FFFF:10.0.0.1]:443', '::ffff:a00:1'],
    ['[fe80::1%25eth0]:443', 'fe80::1'],
    ['10.0.0.1.:443', '10.0.0.1'],
    ['012.1:80', '10.0.0.1'],
  ])('%s dials %s', (target, host) => {
    expect(parseConnectTarget(target)?.host).toBe(host);
  });

  it.each(['1.2.3.4.5:443', '999.1.1.1:443', 'host.0x1f:443', 'example.123:443'])('%s ends in a number but is no address: refused as malformed', (target) => {
    expect(parseConnectTarget(target)).toBeNull();
  });

  it('an absolute-form URL too', () => {
    expect(parseAbsoluteUrl('http://0x7f.1:8080/x')?.target).toEqual({ host: '127.0.0.1', port: 8080 });
    expect(parseAbsoluteUrl('http://[0:0:0:0:0:ffff:a9fe:a9fe]/latest/meta-data/')?.target.host).toBe('::ffff:a9fe:a9fe');
  });
});

describe('allowing private hosts', () => {
  /** A resolver that never asks DNS: each name maps to the addresses the test gives it. */
  function fakeResolver(table: Record<string, string[]>): Resolver {
    return (hostname, _options, callback) => {
      const addresses = table[hostname];
      if (addresses === undefined) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
      callback(
        null,
        addresses.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 })),
      );
    };
  }

  const guardFor = (entries: string[], own: string[] = []) => createDestinationGuard({ allow: parseAllowances(entries), ownAddresses: () => own });

  it('a named host passes although it resolves to a private address; other names and the literal do not', () => {
    const guard = guardFor(['registry.corp.test']);
    expect(guard.refusal('registry.corp.test', '10.20.30.40')).toBeNull();
    expect(guard.refusal('Registry.Corp.Test.', 'fd12::7')).toBeNull();
    expect(guard.refusal('other.corp.test', '10.20.30.40')).toMatch(/RFC 1918/);
    expect(guard.refusal('10.20.30.40', '10.20.30.40')).toMatch(/RFC 1918/);
  });

  it('a named host that resolves to loopback, metadata or this machine stays refused', () => {
    const guard = guardFor(['registry.corp.test'], ['172.17.0.1']);
    for (const address of ['127.0.0.1', '::1', '169.254.169.254', 'fd00:ec2::254', '100.100.100.200', '::ffff:7f00:1', '0.0.0.0', '172.17.0.1']) {
      expect(guard.refusal('registry.corp.test', address), address).not.toBeNull();
    }
  });

  it('*.domain allows its subdomains, not the domain itself', () => {
    const guard = guardFor(['*.corp.test']);
    expect(guard.refusal('npm.corp.test', '10.0.0.5')).toBeNull();
    expect(guard.refusal('a.b.corp.test', '10.0.0.5')).toBeNull();
    expect(guard.refusal('corp.test', '10.0.0.5')).not.toBeNull();
    expect(guard.refusal('evilcorp.test', '10.0.0.5')).not.toBeNull();
  });

  it('an address or a CIDR opens those addresses in any notation, nothing else', () => {
    const guard = guardFor(['10.20.0.0/16', 'fd12::/16']);
    for (const address of ['10.20.30.40', '::ffff:a14:1e28', '169090600', '10.20.7720', 'fd12::1']) expect(guard.refusal(address, address), address).toBeNull();
    for (const address of ['10.21.0.1', '192.168.1.1', 'fd13::1']) expect(guard.refusal(address, address), address).not.toBeNull();
  });

  it('a wide CIDR opens private ranges but never loopback, metadata or this machine', () => {
    const guard = guardFor(['0.0.0.0/0', '::/0'], ['172.17.0.1']);
    expect(guard.refusal('10.0.0.1', '10.0.0.1')).toBeNull();
    expect(guard.refusal('fc00::1', 'fc00::1')).toBeNull();
    for (const address of ['127.0.0.1', '169.254.169.254', '::1', 'fe80::1', '172.17.0.1']) expect(guard.refusal(address, address), address).not.toBeNull();
    expect(guardFor(['172.17.0.0/16'], ['172.17.0.1']).refusal('172.17.0.1', '172.17.0.1')).toMatch(/own addresses/);
  });

  it('loopback, metadata and own addresses open when named explicitly', () => {
    expect(guardFor(['127.0.0.1']).refusal('127.0.0.1', '127.0.0.1')).toBeNull();
    expect(guardFor(['127.0.0.1']).refusal('0x7f.1', '2130706433')).toBeNull();
    expect(guardFor(['127.0.0.1']).refusal('127.0.0.2', '127.0.0.2')).not.toBeNull();
    expect(guardFor(['127.0.0.0/8']).refusal('127.0.0.2', '127.0.0.2')).toBeNull();
    expect(guardFor(['169.254.169.254']).refusal('169.254.169.254', '169.254.169.254')).toBeNull();
    expect(guardFor(['[fd00:ec2::254]']).refusal('fd00:ec2::254', 'fd00:ec2::254')).toBeNull();
    expect(guardFor(['172.17.0.1'], ['172.17.0.1']).refusal('172.17.0.1', '172.17.0.1')).toBeNull();
  });

  it('refuses an entry that is neither a name, an address nor a CIDR', () => {
    for (const entry of ['bad host', '10.1', '1.2.3.4/33', 'fe80::1%eth0', '*.', 'http://x.test', '1.2.3.4.5']) {
      try {
        parseAllowances([entry]);
        expect.unreachable(entry);
      } catch (error) {
        expect(isIntuticError(error) && error.code, entry).toBe('E_CONFIG_INVALID');
      }
    }
    expect(parseAllowances([' ', 'registry.corp.test', '*.corp.test', '10.0.0.0/8', '[::1]'])).toMatchObject({ names: ['registry.corp.test', '.corp.test'] });
  });

  it('the lookup refuses a name when any address it resolves to is refused, and passes an allowed one on', async () => {
    const resolve = fakeResolver({
      'registry.corp.test': ['10.20.30.40'],
      'intranet.test': ['10.1.2.3'],
      'split.test': ['93.184.216.34', '192.168.0.9'],
      'public.test': ['93.184.216.34'],
    });
    const guard = createDestinationGuard({ allow: parseAllowances(['registry.corp.test']), resolve, ownAddresses: () => [] });
    const look = (host: string, all = false) =>
      new Promise<{ error: NodeJS.ErrnoException | null; address: unknown }>((done) =>
        guard.lookup(host, all ? { all: true } : {}, (error, address) => done({ error, address })),
      );
    expect(await look('registry.corp.test')).toEqual({ error: null, address: '10.20.30.40' });
    expect((await look('intranet.test')).error?.code).toBe('EGRESS_FORBIDDEN');
    expect((await look('intranet.test')).error?.message).toContain('10.1.2.3 is a private (RFC 1918) address');
    expect((await look('split.test', true)).error?.code).toBe('EGRESS_FORBIDDEN');
    expect(await look('public.test', true)).toEqual({ error: null, address: [{ address: '93.184.216.34', family: 4 }] });
    expect((await look('missing.test')).error?.code).toBe('ENOTFOUND');
  });
});

describe('host rules written as an address or a CIDR decide IP-literal destinations', () => {
  const rule = (id: string, pattern: string): Rule => ({ id, subject: 'host', pattern, action: 'block', mode: 'enforce', reason: '' });
  const policy: Policy = {
    rules: [
      rule('no-ten', '10.0.0.0/8'),
      rule('no-doc-host', '203.0.113.7'),
      rule('no-ula', 'fd00::/8'),
      rule('no-bracketed', '[2001:db8::]/32'),
      rule('paste', '*.pastebin.com'),
    ],
    bypasses: [],
    sources: { snapshot: 'test', bypasses: null },
    missing: { snapshot: false },
  };
  const ruleFor = (host: string) => decideEgress(policy, host).rule;

  it.each([
    ['10.1.2.3', 'no-ten'],
    ['::ffff:a01:203', 'no-ten'],
    ['::ffff:10.1.2.3', 'no-ten'],
    ['012.1.2.3', 'no-ten'],
    ['167838211', 'no-ten'],
    ['64:ff9b::a01:203', 'no-ten'],
    ['2002:a01:203::', 'no-ten'],
    ['203.0.113.7', 'no-doc-host'],
    ['3405803783', 'no-doc-host'],
    ['0xcb.0.113.7', 'no-doc-host'],
    ['[::ffff:cb00:7107]', 'no-doc-host'],
    ['fd12::1', 'no-ula'],
    ['2001:db8::5', 'no-bracketed'],
    ['x.pastebin.com', 'paste'],
  ])('%s is matched by %s', (host, id) => {
    expect(ruleFor(host)).toBe(id);
    expect(decideEgress(policy, host).decision).toBe('block');
  });

  it.each(['11.0.0.1', '203.0.113.8', '8.8.8.8', 'fc00::1', 'ten.example', '10.example', 'pastebin.com'])('%s matches none of them', (host) => {
    expect(decideEgress(policy, host)).toMatchObject({ decision: 'allow', rule: null });
  });

  it('a glob over addresses sees the canonical address and the IPv4 inside an IPv6 one', () => {
    expect(hostRuleMatches('10.*', '::ffff:10.0.0.1')).toBe(true);
    expect(hostRuleMatches('127.0.0.*', '2130706433')).toBe(true);
    expect(hostRuleMatches('10.*', 'ten.example')).toBe(false);
    expect(hostRuleMatches('10.0.0.0/8', '10.example')).toBe(false);
  });
});
