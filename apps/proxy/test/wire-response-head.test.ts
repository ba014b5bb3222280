// Response heads read off the raw upstream socket: status, headers as node:http gives them, body
// framing and whether the connection may carry the next call.
import { describe, expect, it } from 'vitest';
import { readResponseHead, ResponseFormatError } from '../src/wire/response-head.ts';

const read = (text: string) => readResponseHead(Buffer.from(text));

describe('readResponseHead', () => {
  it('waits for the whole head, then gives the status, headers and the body bytes after it', () => {
    expect(read('HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n')).toBeNull();
    const got = read(
      'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nSet-Cookie: a=1\r\nset-cookie: b=2\r\nX-A: 1\r\nx-a: 2\r\n\r\n5\r\nhello',
    );
    expect(got!.head.status).toBe(200);
    expect(got!.head.headers).toEqual({ 'content-type': 'text/event-stream', 'transfer-encoding': 'chunked', 'set-cookie': ['a=1', 'b=2'], 'x-a': '1, 2' });
    expect(got!.head.framing).toEqual({ kind: 'chunked' });
    expect(got!.head.keepAlive).toBe(true);
    expect(got!.rest.toString()).toBe('5\r\nhello');
  });

  it('frames by Content-Length, by the connection closing, or not at all', () => {
    expect(read('HTTP/1.1 200 OK\r\ncontent-length: 12\r\n\r\n')!.head.framing).toEqual({ kind: 'length', bytes: 12 });
    expect(read('HTTP/1.1 200 OK\r\ncontent-length: 12, 12\r\n\r\n')!.head.framing).toEqual({ kind: 'length', bytes: 12 });
    const close = read('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n')!.head;
    expect(close.framing).toEqual({ kind: 'close' });
    expect(close.keepAlive).toBe(false);
    expect(read('HTTP/1.1 200 OK\r\ntransfer-encoding: gzip\r\n\r\n')!.head.framing).toEqual({ kind: 'close' });
    expect(read('HTTP/1.1 204 No Content\r\n\r\n')!.head.framing).toEqual({ kind: 'none' });
  });

  it('knows when the connection cannot be reused', () => {
    expect(read('HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 0\r\n\r\n')!.head.keepAlive).toBe(false);
    expect(read('HTTP/1.0 200 OK\r\ncontent-length: 0\r\n\r\n')!.head.keepAlive).toBe(false);
    expect(read('HTTP/1.0 200 OK\r\nconnection: keep-alive\r\ncontent-length: 0\r\n\r\n')!.head.keepAlive).toBe(true);
  });

  it('skips interim 1xx responses', () => {
    const got = read(
      'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\nHTTP/1.1 429 Too Many Requests\r\ncontent-length: 2\r\n\r\n{}',
    );
    expect(got!.head.status).toBe(429);
    expect(got!.rest.toString()).toBe('{}');
  });

  it.each([
    ['not HTTP', 'SSH-2.0-OpenSSH_9.2\r\n\r\n'],
    ['HTTP/2 text', 'HTTP/2 200\r\n\r\n'],
    ['a header without a name', 'HTTP/1.1 200 OK\r\n: x\r\n\r\n'],
    ['a folded header line', 'HTTP/1.1 200 OK\r\nx-a: 1\r\n continued\r\n\r\n'],
    ['two different lengths', 'HTTP/1.1 200 OK\r\ncontent-length: 1, 2\r\n\r\n'],
    ['a negative length', 'HTTP/1.1 200 OK\r\ncontent-length: -1\r\n\r\n'],
  ])('refuses %s', (_, text) => {
    expect(() => read(text)).toThrow(ResponseFormatError);
  });

  it('refuses a head that never ends', () => {
    expect(() => readResponseHead(Buffer.alloc(70_000, 0x61))).toThrow(/larger than/);
  });
});
