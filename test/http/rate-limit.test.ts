/**
 * The per-caller rate limit (issue 24, point 3) over a real listening server:
 * a burst from one caller is refused 429 BLOCKED with Retry-After and the
 * RateLimit fields while every other caller is served; callers are the API
 * key at the top level, the grain inside a sandbox grain, the address on the
 * other keyless doors (and for a key that was never issued); a refused write
 * leaves nothing behind; liveness is never limited; a Redis that stops
 * answering never stops the service.
 *
 * The window is one second and starts at a caller's first counted request:
 * a burst sent at once lands in one window unless the machine takes a second
 * to answer it (`expectAdmitted` allows for that).
 */
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { callerLimitsFromEnv, DEFAULT_MAX_STREAMS, DEFAULT_RATE_LIMIT } from '../../src/http/rate-limit.ts';
import { removeDir, spawnService, tempDataDir } from '../../bench/lib/service.ts';
import { ownGrainOf } from '../../src/engine/grains.ts';
import { listeningApp, type TestApp } from '../helpers/app.ts';
import { burst, count, expectAdmitted, inOneWindow, nextWindow, oneWindow } from '../helpers/bursts.ts';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
  raw: string;
}

/** One request over a real socket, optionally from another loopback address (Linux answers all of 127/8). */
function send(base: string, method: string, path: string, options: { body?: unknown; headers?: Record<string, string>; from?: string } = {}): Promise<Answer> {
  const url = new URL(path, base);
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, path: url.pathname + url.search, method, localAddress: options.from, agent: false, headers: { ...(payload ? { 'content-type': 'application/json' } : {}), ...options.headers } },
      (res) => {
        let raw = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (raw += chunk));
        res.on('end', () => {
          let body: any;
          try {
            body = JSON.parse(raw);
          } catch {
            body = undefined;
          }
          resolve({ status: res.statusCode!, headers: res.headers, body, raw });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}


async function issueKey(base: string): Promise<{ key: string; keyId: string; headers: Record<string, string> }> {
  const res = await send(base, 'POST', '/keys', { body: { email: 'limits@legalwork.test' } });
  expect(res.status).toBe(201);
  return { key: res.body.key, keyId: res.body.keyId, headers: { authorization: `Bearer ${res.body.key}` } };
}

async function openWorkspace(base: string): Promise<string> {
  const res = await send(base, 'POST', '/workspaces');
  expect(res.status).toBe(201);
  return `/workspaces/${res.body.workspace.id}`;
}

/** The refusal every over-the-limit answer is. */
function expectRateLimited(answer: Answer, limit: number, caller: 'api key' | 'sandbox grain' | 'address') {
  expect(answer.status).toBe(429);
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  expect(answer.body).toMatchObject({ type: 'BLOCKED', code: 'RATE_LIMITED', retryAfterSeconds: 1, rateLimit: { requestsPerSecond: limit, windowSeconds: 1, caller } });
  expect(answer.body.error).toMatch(new RegExp(`at most ${limit} requests per second.*nothing was written; retry after 1 second`));
  expect(answer.body.fix).toMatch(/Retry-After/);
  expect(answer.headers['retry-after']).toBe('1');
  expect(answer.headers['ratelimit-policy']).toBe(`"per-caller";q=${limit};w=1`);
  expect(answer.headers['ratelimit']).toBe('"per-caller";r=0;t=1');
  expect(answer.headers['request-id']).toBeTruthy();
}

describe('the per-caller rate limit', () => {
  const LIMIT = 5;
  let app: TestApp;
  let base: string;
  beforeAll(async () => {
    ({ app, url: base } = await listeningApp({ rateLimit: { perSecond: LIMIT } }));
  });
  afterAll(async () => {
    await app.close();
  });
  afterEach(nextWindow);

  it('refuses a burst from one key with 429, Retry-After and the RateLimit fields, while a second key is served', async () => {
    const a = await issueKey(base);
    const b = await issueKey(base);
    await nextWindow();
    const flood = await burst(4 * LIMIT, () => send(base, 'GET', '/matters', { headers: a.headers }));
    expectAdmitted(flood, count(flood.answers, 200), LIMIT);
    expect(count(flood.answers, 429)).toBe(4 * LIMIT - count(flood.answers, 200));
    const refused = flood.answers.find((x) => x.status === 429)!;
    expectRateLimited(refused, LIMIT, 'api key');
    expect(refused.body.error).toContain(`API key ${a.keyId}`);
    // The key itself is never echoed, in the body or any header.
    expect(JSON.stringify(refused)).not.toContain(a.key);
    // Each served answer says how much of the window is left.
    const left = flood.answers.filter((x) => x.status === 200).map((x) => x.headers['ratelimit']).sort();
    if (oneWindow(flood)) expect(left).toEqual(Array.from({ length: LIMIT }, (_, i) => `"per-caller";r=${i};t=1`));

    // The other key, at once, from the same address: its own window.
    const other = await send(base, 'GET', '/matters', { headers: b.headers });
    expect(other.status).toBe(200);
    expect(other.headers['ratelimit']).toBe(`"per-caller";r=${LIMIT - 1};t=1`);
    // And the first key again once its window has passed.
    await nextWindow();
    expect((await send(base, 'GET', '/matters', { headers: a.headers })).status).toBe(200);
  });

  it("counts a sandbox grain's requests by the grain: one grain's burst never slows another grain, nor the address", async () => {
    const one = await openWorkspace(base);
    const two = await openWorkspace(base);
    const key = await issueKey(base);
    const { flood, keyed } = await inOneWindow(async () => {
      const flood = await burst(3 * LIMIT, () => send(base, 'GET', `${one}/matters`));
      return { flood, keyed: await send(base, 'GET', `${one}/matters`, { headers: key.headers }) };
    });
    expectAdmitted(flood, count(flood.answers, 200), LIMIT);
    const refused = flood.answers.find((x) => x.status === 429)!;
    expectRateLimited(refused, LIMIT, 'sandbox grain');
    expect(refused.body.error).toContain(`sandbox grain ${one.split('/')[2]}`);
    // A key inside the grain is the grain's traffic too.
    expect(keyed.status).toBe(429);
    expect((await send(base, 'GET', `${two}/matters`)).status).toBe(200);
    expect((await send(base, 'GET', '/pricing')).status).toBe(200);
    expect((await send(base, 'GET', '/matters', { headers: key.headers })).status).toBe(200);
  });

  it('counts the keyless doors by the client address: one address past the limit, another served', async () => {
    const key = await issueKey(base);
    const ws = await openWorkspace(base);
    const { flood, other, unknown } = await inOneWindow(async () => {
      const flood = await burst(3 * LIMIT, () => send(base, 'GET', '/pricing'));
      return { flood, other: await send(base, 'GET', '/llms.txt'), unknown: await send(base, 'GET', '/no-such-door') };
    });
    expectAdmitted(flood, count(flood.answers, 200), LIMIT);
    const refused = flood.answers.find((x) => x.status === 429)!;
    expectRateLimited(refused, LIMIT, 'address');
    expect(refused.body.error).toContain('address 127.0.0.1');
    // Every keyless door of that address is refused now, an unknown path too…
    expect(other.status).toBe(429);
    expect(unknown.status).toBe(429);
    // …but not another address, a key or a grain.
    expect((await send(base, 'GET', '/pricing', { from: '127.0.0.2' })).status).toBe(200);
    expect((await send(base, 'GET', '/matters', { headers: key.headers })).status).toBe(200);
    expect((await send(base, 'GET', `${ws}/matters`)).status).toBe(200);
  });

  it('counts a made-up key against the address it comes from: spraying keys buys no window of its own', async () => {
    const made = () => `Bearer lwk_${randomBytes(32).toString('base64url')}`;
    const { flood, keyless } = await inOneWindow(async () => {
      const flood = await burst(3 * LIMIT, () => send(base, 'GET', '/matters', { headers: { authorization: made() } }));
      return { flood, keyless: await send(base, 'GET', '/pricing') };
    });
    expectAdmitted(flood, count(flood.answers, 401), LIMIT);
    expectRateLimited(flood.answers.find((x) => x.status === 429)!, LIMIT, 'address');
    expect(keyless.status).toBe(429);
  });

  it('never limits liveness: GET /healthz answers every probe', async () => {
    const probes = await burst(4 * LIMIT, () => send(base, 'GET', '/healthz'));
    expect(count(probes.answers, 200)).toBe(4 * LIMIT);
    expect(probes.answers[0].headers['ratelimit']).toBeUndefined();
  });

  it('a refused write leaves nothing: no Matter, no journal event, no kept answer under its Idempotency-Key', async () => {
    const key = await issueKey(base);
    const grain = ownGrainOf(key.keyId);
    // What one Matter's opening journals, measured on its own.
    const start = await app.services.journal.latestSeq(grain);
    expect((await send(base, 'POST', '/matters', { body: { matterType: 'demand_letter' }, headers: key.headers })).status).toBe(201);
    const perMatter = (await app.services.journal.latestSeq(grain)) - start;
    expect(perMatter).toBeGreaterThan(0);
    await nextWindow();
    const before = await app.services.journal.latestSeq(grain);
    const flood = await burst(3 * LIMIT, (i) =>
      send(base, 'POST', '/matters', { body: { matterType: 'demand_letter' }, headers: { ...key.headers, 'idempotency-key': `write-${i}` } }),
    );
    const made = flood.answers.filter((x) => x.status === 201);
    expectAdmitted(flood, made.length, LIMIT);
    expect(count(flood.answers, 429)).toBe(3 * LIMIT - made.length);
    // Only the admitted writes reached the journal.
    expect((await app.services.journal.latestSeq(grain)) - before).toBe(made.length * perMatter);
    await nextWindow();
    const listed = await send(base, 'GET', '/matters', { headers: key.headers });
    expect(listed.body.results.length).toBe(made.length + 1);
    // A refused request under an Idempotency-Key kept nothing: sent again, it runs.
    const refusedAt = flood.answers.findIndex((x) => x.status === 429);
    const again = await send(base, 'POST', '/matters', { body: { matterType: 'demand_letter' }, headers: { ...key.headers, 'idempotency-key': `write-${refusedAt}` } });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
  });
});

describe('LEGALWORK_RATE_LIMIT, LEGALWORK_MAX_STREAMS and LEGALWORK_REDIS_URL', () => {
  it('default to limits a real agent never meets, and "off" turns each off', () => {
    expect(callerLimitsFromEnv({})).toEqual({ rateLimit: { perSecond: DEFAULT_RATE_LIMIT }, maxStreams: DEFAULT_MAX_STREAMS });
    expect(DEFAULT_RATE_LIMIT).toBe(100);
    expect(DEFAULT_MAX_STREAMS).toBe(100);
    expect(callerLimitsFromEnv({ LEGALWORK_RATE_LIMIT: 'off', LEGALWORK_MAX_STREAMS: 'OFF' })).toEqual({});
    expect(callerLimitsFromEnv({ LEGALWORK_RATE_LIMIT: '25', LEGALWORK_MAX_STREAMS: '3', LEGALWORK_REDIS_URL: 'redis://127.0.0.1:6379', LEGALWORK_REDIS_PREFIX: 'lw:' })).toEqual({
      rateLimit: { perSecond: 25, redisUrl: 'redis://127.0.0.1:6379', redisPrefix: 'lw:' },
      maxStreams: 3,
    });
  });

  it('refuse a malformed value with a worded error, never a silent default', () => {
    for (const bad of ['0', '-5', '1.5', 'ten', '1e3', '2000000']) {
      expect(() => callerLimitsFromEnv({ LEGALWORK_RATE_LIMIT: bad })).toThrow(/LEGALWORK_RATE_LIMIT must be a whole number of requests per second per caller from 1 to 1000000, or "off"/);
      expect(() => callerLimitsFromEnv({ LEGALWORK_MAX_STREAMS: bad })).toThrow(/LEGALWORK_MAX_STREAMS must be a whole number of open event streams per caller/);
    }
    expect(() => callerLimitsFromEnv({ LEGALWORK_REDIS_URL: 'http://127.0.0.1:6379' })).toThrow(/LEGALWORK_REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL/);
    // A password in a refused URL is not repeated in the error.
    expect(() => callerLimitsFromEnv({ LEGALWORK_REDIS_URL: 'http://user:s3cret@host:6379' })).toThrow('got "http://host:6379"');
  });

  it('a service started with a malformed value stops at once, naming the variable', async () => {
    const dir = tempDataDir();
    try {
      await expect(spawnService(dir, { LEGALWORK_RATE_LIMIT: 'lots' })).rejects.toThrow(/LEGALWORK_RATE_LIMIT must be a whole number/);
    } finally {
      removeDir(dir);
    }
  });
});
