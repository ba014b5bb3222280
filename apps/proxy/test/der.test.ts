// The DER pieces the per-run CA's certificates are made of, against encodings worked out by hand from
// X.690 (and, for what the CA issues as a whole, against OpenSSL's strict verification in egress.test).
import { describe, expect, it } from 'vitest';
import { element, namedBits, oid, unsignedInteger, utcTime } from '../src/egress/der.ts';
import { ipBytes, serialNumber } from '../src/egress/ca.ts';

const hex = (bytes: Buffer): string => bytes.toString('hex');

describe('DER', () => {
  it('writes short and long lengths', () => {
    expect(hex(element(0x04, Buffer.alloc(3)))).toBe('0403000000');
    expect(hex(element(0x04, Buffer.alloc(200)).subarray(0, 3))).toBe('0481c8');
    expect(hex(element(0x04, Buffer.alloc(300)).subarray(0, 4))).toBe('0482012c');
  });

  it('writes object identifiers with base-128 arcs', () => {
    expect(hex(oid('1.2.840.10045.4.3.2'))).toBe('06082a8648ce3d040302');
    expect(hex(oid('2.5.29.17'))).toBe('0603551d11');
    expect(hex(oid('1.3.6.1.5.5.7.3.1'))).toBe('06082b06010505070301');
  });

  it('writes integers in their minimal form, positive', () => {
    expect(hex(unsignedInteger(Buffer.from([0, 0, 0x7f])))).toBe('02017f');
    expect(hex(unsignedInteger(Buffer.from([0x80])))).toBe('02020080');
    expect(hex(unsignedInteger(Buffer.from([0])))).toBe('020100');
    for (let i = 0; i < 200; i++) {
      const serial = serialNumber();
      expect(serial).toHaveLength(16);
      expect(serial[0]! >= 0x40 && serial[0]! <= 0x7f).toBe(true);
      expect(hex(unsignedInteger(serial).subarray(0, 2))).toBe('0210');
    }
  });

  it('writes named bits without their trailing zero bits', () => {
    expect(hex(namedBits([0, 5, 6]))).toBe('03020186');
    expect(hex(namedBits([0]))).toBe('03020780');
    expect(hex(namedBits([8]))).toBe('0303070080');
  });

  it('writes UTCTime in UTC', () => {
    expect(utcTime(new Date(Date.UTC(2026, 11, 2, 3, 4, 5))).toString('ascii', 2)).toBe('261202030405Z');
  });

  it('reads IPv4 and IPv6 addresses into their bytes', () => {
    expect(hex(ipBytes('127.0.0.1'))).toBe('7f000001');
    expect(hex(ipBytes('::1'))).toBe('00000000000000000000000000000001');
    expect(hex(ipBytes('::'))).toBe('00000000000000000000000000000000');
    expect(hex(ipBytes('2001:db8::1:2'))).toBe('20010db8000000000000000000010002');
    expect(hex(ipBytes('fe80::'))).toBe('fe800000000000000000000000000000');
    expect(hex(ipBytes('::ffff:10.0.0.1'))).toBe('00000000000000000000ffff0a000001');
    expect(hex(ipBytes('1:2:3:4:5:6:7:8'))).toBe('00010002000300040005000600070008');
  });
});
