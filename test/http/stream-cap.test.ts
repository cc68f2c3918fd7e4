/**
 * The cap on open event streams per caller (issue 24, point 4), over a real
 * listening server with a small cap: one more `GET …/events/stream` than the
 * cap is answered 429 BLOCKED (STREAM_CAP) at once, naming the cap, while
 * other callers open theirs; closing a stream frees its slot.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listeningApp, type TestApp } from '../helpers/app.ts';
import { until } from '../helpers/wait.ts';

const CAP = 2;

interface Opened {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body as JSON when the answer was not a stream. */
  body?: any;
  close: () => Promise<void>;
}

/** Opens a stream (resolves once its headers arrive) or reads the refusal. */
function openStream(base: string, path: string, headers: Record<string, string> = {}): Promise<Opened> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = http.get({ host: url.hostname, port: url.port, path: url.pathname, agent: false, headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      const close = () =>
        new Promise<void>((done) => {
          if (res.destroyed) return done();
          res.once('close', () => done());
          req.destroy();
        });
      if (String(res.headers['content-type']).startsWith('text/event-stream')) return resolve({ status: res.statusCode!, headers: res.headers, close });
      let raw = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (raw += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: JSON.parse(raw), close }));
    });
    req.on('error', reject);
  });
}

async function post(base: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${base}${path}`, { method: 'POST', ...(body !== undefined ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}) });
  expect(res.status).toBeLessThan(300);
  return res.json();
}

describe('the cap on open event streams per caller', () => {
  let app: TestApp;
  let base: string;
  const open: Opened[] = [];
  beforeAll(async () => {
    ({ app, url: base } = await listeningApp({ maxStreams: CAP }));
  });
  afterAll(async () => {
    await Promise.all(open.map((s) => s.close()));
    await app.close();
  });

  it('refuses one more stream than the cap at once with 429 naming it, while another grain opens its own', async () => {
    const one = `/workspaces/${(await post(base, '/workspaces')).workspace.id}`;
    const two = `/workspaces/${(await post(base, '/workspaces')).workspace.id}`;
    for (let i = 0; i < CAP; i += 1) {
      const s = await openStream(base, `${one}/events/stream`);
      open.push(s);
      expect(s.status).toBe(200);
    }
    const refused = await openStream(base, `${one}/events/stream`);
    expect(refused.status).toBe(429);
    expect(refused.headers['content-type']).toMatch(/^application\/json/);
    expect(refused.body).toMatchObject({ type: 'BLOCKED', code: 'STREAM_CAP', streams: { limit: CAP, caller: 'sandbox grain' } });
    expect(refused.body.error).toContain(`sandbox grain ${one.split('/')[2]} already holds ${CAP} open event streams`);
    expect(refused.body.error).toMatch(/this one was not opened/);
    expect(refused.body.fix).toMatch(/close an event stream/);
    // Another feed of the same grain is the same caller.
    expect((await openStream(base, `${one}/events/stream?feed=all`)).status).toBe(429);
    // Another grain is another caller.
    const other = await openStream(base, `${two}/events/stream`);
    open.push(other);
    expect(other.status).toBe(200);
    // The JSON subscription contract (no Accept: text/event-stream) holds no slot and is never refused for it.
    const contract = await fetch(`${base}${one}/events/stream`);
    expect(contract.status).toBe(200);
  });

  it('frees a slot when a stream closes', async () => {
    const ws = `/workspaces/${(await post(base, '/workspaces')).workspace.id}`;
    const held: Opened[] = [];
    for (let i = 0; i < CAP; i += 1) held.push(await openStream(base, `${ws}/events/stream`));
    expect(held.map((s) => s.status)).toEqual(Array(CAP).fill(200));
    expect((await openStream(base, `${ws}/events/stream`)).status).toBe(429);
    await held[0].close();
    // The server sees the socket close on a later turn of its loop: asked until a stream is admitted (refusals end at once).
    let again!: Opened;
    await until(async () => (again = await openStream(base, `${ws}/events/stream`)).status === 200, 'the freed slot to admit a stream');
    open.push(again, held[1]);
    // And the cap holds again.
    expect((await openStream(base, `${ws}/events/stream`)).status).toBe(429);
  });

  it('counts top-level streams by API key: one key at its cap, another key served', async () => {
    const issue = async () => ({ authorization: `Bearer ${(await post(base, '/keys', { email: 'streams@legalwork.test' })).key}` });
    const a = await issue();
    const b = await issue();
    for (let i = 0; i < CAP; i += 1) {
      const s = await openStream(base, '/events/stream', a);
      open.push(s);
      expect(s.status).toBe(200);
    }
    const refused = await openStream(base, '/events/stream', a);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'STREAM_CAP', streams: { limit: CAP, caller: 'api key' } });
    const other = await openStream(base, '/events/stream', b);
    open.push(other);
    expect(other.status).toBe(200);
  });

  it('is declared on every event-stream operation of the contract, beside the rate limit', async () => {
    const doc = await (await fetch(`${base}/openapi.json`)).json();
    const streams = Object.keys(doc.paths).filter((p) => p.endsWith('/events/stream'));
    expect(streams.length).toBe(4);
    for (const path of streams) {
      const op = doc.paths[path].get;
      expect(op['x-refusal-codes']['429'], path).toEqual(expect.arrayContaining(['STREAM_CAP', 'RATE_LIMITED']));
      expect(Object.keys(op.responses['429'].headers)).toEqual(expect.arrayContaining(['Retry-After', 'RateLimit', 'RateLimit-Policy']));
    }
  });
});
