/**
 * What HTTP itself refuses is answered from the refusal catalog
 * (`src/http/client-errors.ts`), over a real listening server with raw
 * sockets where the wire matters: a URL that cannot be percent-decoded, a
 * path id far past the router's old limit, a request Node's parser cannot
 * read, a request head past 16 KiB, a CONNECT, an HTTP/1.1 request without
 * Host. Each answer is the uniform JSON refusal (`error`, `code`, `fix`, the
 * catalog's fix) with a `request-id` header, never Node's bare status line,
 * Fastify's own `FST_ERR_*` body or a silent close; and each code is
 * declared in /openapi.json on every operation.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { REFUSALS, type RefusalCode } from '../../src/domain/refusals.ts';
import { listeningApp, type TestApp } from '../helpers/app.ts';
import { rawClient, type RawClient } from '../helpers/raw-client.ts';

let app: TestApp;
let url: string;
const clients: RawClient[] = [];

beforeAll(async () => {
  ({ app, url } = await listeningApp());
});
afterEach(() => {
  for (const c of clients.splice(0)) c.destroy();
});
afterAll(async () => app.close());

const REQUEST_ID = /^rq_[0-9a-f]+[0-9a-z]+$/;

/** Writes `bytes` on a fresh socket and waits for a whole response (and, with `closes`, for the service to close the connection). */
async function raw(bytes: string, { closes = false } = {}): Promise<{ status: number; headers: Record<string, string>; body: string; client: RawClient }> {
  const client = await rawClient(url);
  clients.push(client);
  client.write(bytes);
  await client.until(() => client.response() !== undefined || client.isClosed, 5000, 'a response');
  const res = client.response();
  expect(res, `no response, only ${JSON.stringify(client.received.slice(0, 300))} (closed=${client.isClosed})`).toBeDefined();
  if (closes) await client.until(() => client.isClosed, 5000, 'the service to close the connection');
  return { ...res!, client };
}

/** The uniform refusal: JSON with error, code and a fix (the catalog's, or one naming the field a schema refusal names), and a request-id header. */
function expectRefusal(res: { status: number; headers: Record<string, string>; body: string }, status: number, code: RefusalCode) {
  expect(res.status, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.headers['request-id'], 'a request-id header').toMatch(REQUEST_ID);
  const body = JSON.parse(res.body);
  expect(body).toMatchObject({ error: expect.any(String), code, fix: body.field ? expect.stringContaining(body.field) : REFUSALS[code].fix });
  expect(body.error.length).toBeGreaterThan(0);
  expect(res.body).not.toMatch(/FST_ERR|statusCode|"message"/);
  return body as { error: string; code: string; fix: string };
}

describe('a URL that cannot be decoded, or a long path id', () => {
  it('refuses GET /workspaces/%zz with 400 MALFORMED_URL, the uniform body and a request-id', async () => {
    for (const path of ['/workspaces/%zz', '/workspaces/%zz/matters', '/no-such-door/%zz']) {
      const res = await fetch(`${url}${path}`);
      const body = await res.text();
      expectRefusal({ status: res.status, headers: Object.fromEntries(res.headers), body }, 400, 'MALFORMED_URL');
      expect(JSON.parse(body).error, path).toMatch(/not a well-formed URL/);
    }
  });

  it('sends a path id of 500 characters to its route, which refuses it from the catalog (never 414 or a Fastify body)', async () => {
    for (const path of [`/workspaces/${'x'.repeat(500)}`, `/workspaces/${'x'.repeat(500)}/matters`, `/tenants/${'x'.repeat(500)}`]) {
      const res = await fetch(`${url}${path}`);
      const text = await res.text();
      expect(res.status, text.slice(0, 200)).not.toBe(414);
      expect([404, 422], text.slice(0, 200)).toContain(res.status);
      const body = JSON.parse(text);
      expect(Object.keys(REFUSALS), text.slice(0, 200)).toContain(body.code);
      expectRefusal({ status: res.status, headers: Object.fromEntries(res.headers), body: text }, res.status, body.code);
    }
  });
});

describe('a request HTTP cannot read', () => {
  it('answers a Content-Length that is not a number 400 MALFORMED_HTTP in JSON with a request-id, and closes the connection', async () => {
    const res = await raw('GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n', { closes: true });
    const body = expectRefusal(res, 400, 'MALFORMED_HTTP');
    expect(body.error).toMatch(/not well-formed HTTP/);
    expect(res.headers.connection).toBe('close');
    expect(res.client.isClosed).toBe(true);
  });

  it('answers a request head over 16 KiB 431 HEADERS_TOO_LARGE in JSON with a request-id, and closes the connection', async () => {
    const res = await raw(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`, { closes: true });
    const body = expectRefusal(res, 431, 'HEADERS_TOO_LARGE');
    expect(body.error).toMatch(/exceed \d+ bytes/);
    expect(res.client.isClosed).toBe(true);
  });

  it('answers a CONNECT 400 MALFORMED_HTTP (this is not a proxy) rather than closing the connection unanswered', async () => {
    const res = await raw('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', { closes: true });
    const body = expectRefusal(res, 400, 'MALFORMED_HTTP');
    expect(body.error).toMatch(/CONNECT/);
  });

  it('refuses an HTTP/1.1 request without Host 400 MALFORMED_HTTP naming Host, closing the connection as it says, and serves an HTTP/1.0 one', async () => {
    const res = await raw('GET /healthz HTTP/1.1\r\n\r\n', { closes: true });
    const body = expectRefusal(res, 400, 'MALFORMED_HTTP');
    expect(body.error).toMatch(/Host/);
    expect(res.headers.connection).toBe('close');
    const old = await raw('GET /healthz HTTP/1.0\r\n\r\n', { closes: true });
    expect(old.status, old.body).toBe(200);
    expect(old.headers['request-id']).toMatch(REQUEST_ID);
  });

  it('still serves the next connection after each of these', async () => {
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });
});

describe('/openapi.json', () => {
  it('declares each of these refusals, at its catalog status, on every operation', async () => {
    const doc = (await (await fetch(`${url}/openapi.json`)).json()) as { paths: Record<string, Record<string, { 'x-refusal-codes'?: Record<string, string[]> }>> };
    const codes: RefusalCode[] = ['MALFORMED_URL', 'MALFORMED_HTTP', 'HEADERS_TOO_LARGE', 'REQUEST_TIMEOUT', 'SERVICE_DRAINING'];
    expect(codes.map((c) => REFUSALS[c].status)).toEqual([400, 400, 431, 408, 503]);
    let operations = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (!['get', 'head', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
        operations++;
        const declared = op['x-refusal-codes'] ?? {};
        for (const code of codes) expect(declared[String(REFUSALS[code].status)] ?? [], `${method.toUpperCase()} ${path} declares ${code}`).toContain(code);
      }
    }
    expect(operations).toBeGreaterThan(100);
    // Named operations, so the check above cannot pass on an empty document.
    for (const code of codes) {
      expect(doc.paths['/healthz'].get['x-refusal-codes']![String(REFUSALS[code].status)]).toContain(code);
      expect(doc.paths['/workspaces/{workspaceId}'].get['x-refusal-codes']![String(REFUSALS[code].status)]).toContain(code);
    }
  });
});
