// The fuzzer's raw-socket reading, which judges answers by the request's method: two CI runs failed on it, not on the service.
import { describe, expect, it } from 'vitest';
import { parseAnswer, rawMethod } from './helpers/fuzz/http.ts';

describe("the fuzzer's raw HTTP reading", () => {
  it('reads the method after the empty lines a server skips before a request line', () => {
    expect(rawMethod(Buffer.from('HEAD /matters HTTP/1.1\r\n\r\n'))).toBe('HEAD');
    expect(rawMethod(Buffer.from('\r\n\r\nHEAD /matters HTTP/1.1\r\n\r\n'))).toBe('HEAD');
    expect(rawMethod(Buffer.from('\n\nPOST /matters HTTP/1.1\n\n'))).toBe('POST');
    expect(rawMethod(Buffer.from([0x16, 0x03, 0x01]))).toBeUndefined();
  });

  it('ends the answer to a HEAD, a 304 and a 204 at its headers, and any other at its Content-Length', () => {
    const refusal = Buffer.from('HTTP/1.1 409 Conflict\r\ncontent-length: 5\r\n\r\n');
    expect(parseAnswer(refusal, true)).toMatchObject({ status: 409, complete: true, body: Buffer.alloc(0) });
    expect(parseAnswer(refusal, false).complete).toBe(false);
    const notModified = Buffer.from('HTTP/1.1 304 Not Modified\r\netag: "x"\r\n\r\nHTTP/1.1 408 Request Timeout\r\n\r\n');
    expect(parseAnswer(notModified)).toMatchObject({ status: 304, complete: true, body: Buffer.alloc(0) });
    expect(parseAnswer(Buffer.from('HTTP/1.1 400 Bad Request\r\ncontent-length: 2\r\n\r\n{}'))).toMatchObject({ status: 400, complete: true });
  });
});
