/**
 * Requests no HTTP client writes, for bare sockets: control characters and
 * line breaks in header values, broken or doubled Content-Length, chunked
 * bodies that lie, bodies shorter or longer than they say, unknown methods,
 * missing Host, odd HTTP versions and request targets, request heads past
 * Node's 16 KiB, an HTTP/2 preface, garbage. Each starts from a request the
 * generator made valid by the contract and breaks it at the byte level.
 */
import type { FuzzRequest } from './http.ts';
import type { Rng } from './rng.ts';

export interface RawCase {
  name: string;
  bytes: Buffer;
}

const CRLF = '\r\n';

/** The request as bytes: request line, headers (Host first), the body by Content-Length. */
function head(method: string, target: string, headers: Array<[string, string]>, version = 'HTTP/1.1'): string {
  return `${method} ${target} ${version}${CRLF}${headers.map(([k, v]) => `${k}: ${v}`).join(CRLF)}${headers.length ? CRLF : ''}${CRLF}`;
}

function headersOf(req: FuzzRequest, host: string): Array<[string, string]> {
  const out: Array<[string, string]> = [['Host', host]];
  for (const [k, v] of Object.entries(req.headers)) for (const one of ([] as string[]).concat(v)) out.push([k, one]);
  return out;
}

export function rawCase(req: FuzzRequest, host: string, rng: Rng): RawCase {
  const body = req.body ?? Buffer.from('{}');
  const hs = headersOf(req, host);
  const withBody = (h: Array<[string, string]>, b: Buffer = body, cl: string | null = String(b.length)) => [...h, ...(cl === null ? [] : ([['Content-Length', cl]] as Array<[string, string]>)), ...(req.body ? [] : ([['Content-Type', 'application/json']] as Array<[string, string]>))];
  const bytes = (s: string, b?: Buffer) => (b ? Buffer.concat([Buffer.from(s, 'latin1'), b]) : Buffer.from(s, 'latin1'));
  const cases: Array<[string, () => Buffer]> = [
    ['control-char-in-header', () => bytes(head(req.method, req.path, [...withBody(hs), ['X-Fuzz', `a${String.fromCharCode(rng.pick([0, 1, 8, 0x1b, 0x7f]))}b`]]), body)],
    ['control-char-in-idempotency-key', () => bytes(head(req.method, req.path, [...withBody(hs), ['Idempotency-Key', `k${String.fromCharCode(rng.pick([0, 1, 0x1f]))}k`]]), body)],
    ['nul-in-authorization', () => bytes(head(req.method, req.path, [...withBody(hs), ['Authorization', 'Bearer lwk_\u0000x']]), body)],
    ['bare-lf-in-header', () => bytes(head(req.method, req.path, [...withBody(hs), ['X-A', 'b\nX-B: c']]), body)],
    ['header-without-colon', () => bytes(head(req.method, req.path, [...withBody(hs), ['fuzzline', '']]).replace('fuzzline: ', 'fuzzline'), body)],
    ['space-before-colon', () => bytes(head(req.method, req.path, withBody(hs)).replace('Content-Length:', 'Content-Length :'), body)],
    ['obs-fold', () => bytes(head(req.method, req.path, [...withBody(hs), ['X-Fold', `a${CRLF}  folded`]]), body)],
    ['utf8-in-header', () => bytes(head(req.method, req.path, [...withBody(hs), ['X-Actor', Buffer.from('Zoë 👩‍⚖️', 'utf8').toString('latin1')]]), body)],
    ['header-over-16k', () => bytes(head(req.method, req.path, [...withBody(hs), ['X-Fuzz', 'h'.repeat(rng.pick([17_000, 40_000, 100_000]))]]), body)],
    ['many-headers', () => bytes(head(req.method, req.path, [...withBody(hs), ...Array.from({ length: rng.pick([200, 2000]) }, (_, i) => [`x-f${i}`, String(i)] as [string, string])]), body)],
    ['request-line-over-16k', () => bytes(head(req.method, `${req.path.split('?')[0]}/${'a'.repeat(20_000)}`, withBody(hs)), body)],
    ['bad-content-length', () => bytes(head(req.method, req.path, withBody(hs, body, rng.pick(['abc', '-1', '1.5', '1,2', ' ', '99999999999999999999', '0x10', '+5']))), body)],
    ['two-content-lengths', () => bytes(head(req.method, req.path, [...withBody(hs), ['Content-Length', String(body.length + 1)]]), body)],
    ['content-length-and-chunked', () => bytes(head(req.method, req.path, [...withBody(hs), ['Transfer-Encoding', 'chunked']]), Buffer.concat([Buffer.from(`${body.length.toString(16)}${CRLF}`), body, Buffer.from(`${CRLF}0${CRLF}${CRLF}`)]))],
    ['bad-chunk-size', () => bytes(head(req.method, req.path, [...withBody(hs, body, null), ['Transfer-Encoding', 'chunked']]), Buffer.from(`zz${CRLF}${body.toString('latin1')}${CRLF}0${CRLF}${CRLF}`, 'latin1'))],
    ['chunk-size-overflow', () => bytes(head(req.method, req.path, [...withBody(hs, body, null), ['Transfer-Encoding', 'chunked']]), Buffer.from(`ffffffffffffffffff${CRLF}x${CRLF}0${CRLF}${CRLF}`))],
    ['unknown-transfer-encoding', () => bytes(head(req.method, req.path, [...withBody(hs, body, null), ['Transfer-Encoding', rng.pick(['gzip', 'fuzz', 'chunked, gzip', 'identity'])]]), body)],
    ['short-body', () => bytes(head(req.method, req.path, withBody(hs, body, String(body.length + 50))), body)],
    ['long-body', () => bytes(head(req.method, req.path, withBody(hs, body, String(Math.max(0, body.length - 2)))), Buffer.concat([body, Buffer.from('\r\nGARBAGE / HTTP/1.1\r\n\r\n')]))],
    ['invalid-method', () => bytes(head(rng.pick(['G@T', 'FUZZ', 'get', 'POST\u0000', 'CONNECT', 'M-SEARCH', 'SOURCE', '']), req.path, withBody(hs)), body)],
    ['no-host', () => bytes(head(req.method, req.path, withBody(hs.filter(([k]) => k !== 'Host'))), body)],
    ['two-hosts', () => bytes(head(req.method, req.path, [['Host', 'evil.example'], ...withBody(hs)]), body)],
    ['http-1.0', () => bytes(head(req.method, req.path, withBody(rng.chance(0.5) ? hs : hs.filter(([k]) => k !== 'Host')), 'HTTP/1.0'), body)],
    ['odd-version', () => bytes(head(req.method, req.path, withBody(hs), rng.pick(['HTTP/9.9', 'HTTP/1.1x', 'HTTP/2.0', 'HTTP/1', 'FTP/1.1', 'http/1.1'])), body)],
    ['absolute-form', () => bytes(head(req.method, `http://evil.example${req.path}`, withBody(hs)), body)],
    ['asterisk-form', () => bytes(head(rng.pick(['OPTIONS', 'GET']), '*', withBody(hs)), body)],
    ['raw-utf8-path', () => bytes(head(req.method, Buffer.from(`${req.path.split('?')[0]}/🗺/é`, 'utf8').toString('latin1'), withBody(hs)), body)],
    ['space-in-path', () => bytes(head(req.method, `${req.path.split('?')[0]} x`, withBody(hs)), body)],
    ['nul-in-path', () => bytes(head(req.method, `${req.path.split('?')[0]}\u0000x`, withBody(hs)), body)],
    ['fragment-in-target', () => bytes(head(req.method, `${req.path}#frag`, withBody(hs)), body)],
    ['h2-preface', () => bytes(`PRI * HTTP/2.0${CRLF}${CRLF}SM${CRLF}${CRLF}`)],
    ['leading-empty-lines', () => bytes(`${CRLF}${CRLF}${head(req.method, req.path, withBody(hs))}`, body)],
    ['lf-only', () => bytes(head(req.method, req.path, withBody(hs)).replace(/\r\n/g, '\n'), body)],
    ['garbage', () => {
      const n = rng.pick([1, 10, 200, 5000]);
      const b = Buffer.alloc(n);
      for (let i = 0; i < n; i++) b[i] = rng.int(256);
      return b;
    }],
    ['tls-hello', () => Buffer.from('16030100a5010000a10303', 'hex')],
  ];
  const [name, build] = rng.pick(cases);
  return { name, bytes: build() };
}
