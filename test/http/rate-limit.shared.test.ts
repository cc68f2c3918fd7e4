/**
 * The rate limit across processes (issue 24, point 3): with
 * LEGALWORK_REDIS_URL two real service processes on one PostgreSQL journal
 * count a caller's requests together in Redis (the plugin's Redis store),
 * and without it each counts its own. A Redis that stops answering never
 * stops the service: the count falls back to the process's memory and goes
 * back to Redis when it answers again.
 *
 * Redis is the machine's own or one `npm test` started for the run
 * (test/helpers/redis.ts): one that does not answer fails these tests,
 * never skips them.
 * Each test counts under a Redis prefix of its own, so parallel runs never
 * share counters.
 */
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { removeDir, spawnService, tempDataDir, type Child } from '../../bench/lib/service.ts';
import { dropSchema, freshSchema, TEST_DATABASE_URL } from '../helpers/postgres.ts';
import { expectDatabase, send } from '../helpers/processes.ts';
import type { AppOptions } from '../../src/compose.ts';
import { listeningApp, type TestApp } from '../helpers/app.ts';
import { burst, count, expectAdmitted, nextWindow, oneWindow, type Burst } from '../helpers/bursts.ts';
import { TEST_REDIS_HOST, TEST_REDIS_PORT, TEST_REDIS_URL as REDIS_URL } from '../helpers/redis.ts';
import { doubledWithRoom, HANG_MS, until } from '../helpers/wait.ts';

const LIMIT = 10;

const prefixOfThisRun = () => `legalwork:test:${randomBytes(6).toString('hex')}:`;


let redis: Redis;
beforeAll(async () => {
  redis = new Redis(REDIS_URL, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, connectTimeout: 2000, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    expect(await redis.ping()).toBe('PONG');
  } catch (error) {
    throw new Error(`Redis is unreachable at ${REDIS_URL} (these tests need it; npm test finds or starts one): ${String(error)}`);
  }
});
afterAll(async () => {
  redis?.disconnect();
});

describe('two service processes on one PostgreSQL journal', () => {
  const children: Child[] = [];
  const dirs: string[] = [];
  const schemas: string[] = [];
  const prefixes: string[] = [];

  async function processes(withRedis: boolean): Promise<[Child, Child]> {
    const schema = freshSchema();
    schemas.push(schema);
    const prefix = prefixOfThisRun();
    prefixes.push(prefix);
    const env: Record<string, string> = { LEGALWORK_DATABASE_URL: TEST_DATABASE_URL, LEGALWORK_DATABASE_SCHEMA: schema, LEGALWORK_RATE_LIMIT: String(LIMIT), ...(withRedis ? { LEGALWORK_REDIS_URL: REDIS_URL, LEGALWORK_REDIS_PREFIX: prefix } : {}) };
    const spawned = await Promise.all(['a', 'b'].map((name) => {
      const dir = tempDataDir(`legalwork-limit-${name}-`);
      dirs.push(dir);
      return spawnService(dir, env);
    }));
    children.push(...spawned);
    return spawned as [Child, Child];
  }

  async function issueKey(base: string) {
    const res = await send(base, 'POST', '/keys', { email: 'limits@legalwork.test' });
    expect(res.status).toBe(201);
    return { keyId: res.body.keyId as string, headers: { authorization: `Bearer ${res.body.key}` } };
  }

  beforeAll(expectDatabase);
  afterAll(async () => {
    await Promise.all(children.map((c) => c.kill()));
    for (const dir of dirs) removeDir(dir);
    for (const schema of schemas) await dropSchema(schema);
    for (const prefix of prefixes) {
      const left = await redis.keys(`${prefix}*`);
      if (left.length) await redis.del(...left);
    }
  });

  it('with LEGALWORK_REDIS_URL, requests split across both are limited together: one key, one limit', async () => {
    const [a, b] = await processes(true);
    const key = await issueKey(a.url);
    const other = await issueKey(b.url);
    // A request whose Redis command outlives its timeout (250 ms) is counted in its process's memory, as a Redis
    // that does not answer is (it never stops the service): on a loaded core a stalled event loop makes one such,
    // and the window admits one more. That flood is sent again in a new window; a limit the two processes do not
    // share admits twice the limit every time, and fails below.
    let flood!: Burst<Awaited<ReturnType<typeof send>>>;
    for (let attempt = 1; attempt <= 5; attempt++) {
      await nextWindow();
      flood = await burst(4 * LIMIT, (i) => send(i % 2 ? b.url : a.url, 'GET', '/matters', undefined, key.headers));
      if (!oneWindow(flood) || count(flood.answers, 200) === LIMIT) break;
    }
    // The count is in Redis, under the test's prefix and the key's id (never the key): every request of both processes.
    const counted = Number(await redis.get(`${prefixes.at(-1)}key:${key.keyId}`));
    if (oneWindow(flood)) expect(counted).toBe(4 * LIMIT);
    expectAdmitted(flood, count(flood.answers, 200), LIMIT);
    expect(count(flood.answers, 429)).toBe(4 * LIMIT - count(flood.answers, 200));
    // Both processes refused some: each read the one count.
    expect(flood.answers.filter((x, i) => i % 2 === 0 && x.status === 429).length).toBeGreaterThan(0);
    expect(flood.answers.filter((x, i) => i % 2 === 1 && x.status === 429).length).toBeGreaterThan(0);
    const refused = flood.answers.find((x) => x.status === 429)!;
    expect(refused.body).toMatchObject({ type: 'BLOCKED', code: 'RATE_LIMITED', rateLimit: { requestsPerSecond: LIMIT, caller: 'api key' } });
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers['ratelimit-policy']).toBe(`"per-caller";q=${LIMIT};w=1`);
    // Another key is served at once, by either process.
    expect((await send(a.url, 'GET', '/matters', undefined, other.headers)).status).toBe(200);
    expect((await send(b.url, 'GET', '/matters', undefined, other.headers)).status).toBe(200);
  });

  it('without it, each process counts on its own: the same burst is admitted once per process', async () => {
    const [a, b] = await processes(false);
    const key = await issueKey(a.url);
    await nextWindow();
    const flood = await burst(4 * LIMIT, (i) => send(i % 2 ? b.url : a.url, 'GET', '/matters', undefined, key.headers));
    expectAdmitted(flood, count(flood.answers, 200), 2 * LIMIT);
    expectAdmitted(flood, flood.answers.filter((x, i) => i % 2 === 0 && x.status === 200).length, LIMIT);
  });
});

/** A burst of three times the limit: its answers, and how long they took. */
const flood = (url: string) => burst(3 * LIMIT, () => send(url, 'GET', '/pricing'));

/**
 * A burst limited to the limit, and answered at once: what a process counting
 * in memory does. "At once" is held to `yardstick`, the same burst answered by
 * the same app while Redis answered, a moment before: a loaded core slows both
 * alike. The bound, twice it and a second, leaves the Redis client's command
 * timeout (250 ms) inside the room and catches a request held on a silent
 * Redis for seconds (no timeout, a queue of commands waiting for it to answer,
 * retries with backoff), or for ever.
 */
async function expectLimitedAtOnce(url: string, yardstick: Burst<unknown>): Promise<void> {
  const b = await flood(url);
  expect(b.ms, `the burst took ${b.ms.toFixed(0)} ms; answered by Redis a moment before, ${yardstick.ms.toFixed(0)} ms`).toBeLessThan(doubledWithRoom(yardstick.ms));
  expectAdmitted(b, count(b.answers, 200), LIMIT);
  expect(count(b.answers, 429)).toBe(3 * LIMIT - count(b.answers, 200));
}

/** A TCP relay to Redis the test can cut and restore: an outage without touching the machine's Redis. */
async function relay(): Promise<{ url: string; cut: () => Promise<void>; restore: () => Promise<void>; close: () => Promise<void>; hang: () => void }> {
  const sockets = new Set<net.Socket>();
  /** Connections stay open and nothing crosses them: a Redis that hangs. */
  let hung = false;
  let server: net.Server;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve) => {
      server = net.createServer((client) => {
        const upstream = net.connect(TEST_REDIS_PORT, TEST_REDIS_HOST);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => undefined);
        }
        client.on('data', (bytes) => void (hung || upstream.write(bytes)));
        upstream.on('data', (bytes) => void (hung || client.write(bytes)));
      });
      server.listen(port, '127.0.0.1', () => {
        port = (server.address() as net.AddressInfo).port;
        resolve();
      });
    });
  const cut = async () => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const s of sockets) s.destroy();
    });
  };
  await listen();
  return { url: `redis://127.0.0.1:${port}`, cut, restore: listen, close: cut, hang: () => void (hung = true) };
}

describe('a Redis that does not answer never stops the service (fail-open to per-process counting)', () => {
  let app: TestApp | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('starts and serves beside an unreachable Redis, and still limits each caller in its own memory', async () => {
    /** ms to start an app with these limits, listening. */
    const startTime = async (rateLimit: AppOptions['rateLimit']) => {
      const started = performance.now();
      const { app: made } = await listeningApp({ rateLimit });
      const ms = performance.now() - started;
      await made.close();
      return ms;
    };
    // The yardstick: the same app without Redis, on this machine now (best of two: the first also loads what every start shares).
    const withoutRedis = Math.min(await startTime({ perSecond: LIMIT }), await startTime({ perSecond: LIMIT }));
    const started = performance.now();
    const { app: made, url } = await listeningApp({ rateLimit: { perSecond: LIMIT, redisUrl: 'redis://127.0.0.1:1', redisPrefix: prefixOfThisRun() } });
    app = made;
    // It waited a second for Redis, then started anyway: never for ever, nor for the client's reconnections.
    const ms = performance.now() - started;
    expect(ms, `started in ${ms.toFixed(0)} ms; without Redis ${withoutRedis.toFixed(0)} ms`).toBeLessThan(1000 + doubledWithRoom(withoutRedis));
    const b = await flood(url);
    expectAdmitted(b, count(b.answers, 200), LIMIT);
    expect(count(b.answers, 429)).toBe(3 * LIMIT - count(b.answers, 200));
  });

  it('counts in memory while Redis is cut off mid-run, and in Redis again once it answers', async () => {
    const link = await relay();
    const prefix = prefixOfThisRun();
    try {
      const { app: made, url } = await listeningApp({ rateLimit: { perSecond: LIMIT, redisUrl: link.url, redisPrefix: prefix } });
      app = made;
      const counter = `${prefix}ip:127.0.0.1`;
      // Counted in Redis.
      expect((await send(url, 'GET', '/pricing')).status).toBe(200);
      expect(Number(await redis.get(counter))).toBe(1);
      await nextWindow();
      const yardstick = await flood(url);

      await link.cut();
      await nextWindow();
      // Redis is gone: every request is still answered at once, and a burst is still limited (in this process).
      await expectLimitedAtOnce(url, yardstick);
      expect(await redis.exists(counter)).toBe(0);

      await link.restore();
      // The client reconnects on its own (its backoff is at most 2 s); the count goes back to Redis.
      await until(async () => {
        expect((await send(url, 'GET', '/healthz')).status).toBe(200);
        await send(url, 'GET', '/pricing');
        return Number(await redis.get(counter)) > 0;
      }, 'the count to go back to Redis once it answers again', HANG_MS, 250);
    } finally {
      await app?.close();
      app = undefined;
      await link.close();
      const left = await redis.keys(`${prefix}*`);
      if (left.length) await redis.del(...left);
    }
  });

  it('answers at once while Redis hangs (connected, silent): a command that gets no answer falls back to memory', async () => {
    const link = await relay();
    const prefix = prefixOfThisRun();
    try {
      const { app: made, url } = await listeningApp({ rateLimit: { perSecond: LIMIT, redisUrl: link.url, redisPrefix: prefix } });
      app = made;
      expect((await send(url, 'GET', '/pricing')).status).toBe(200);
      await nextWindow();
      const yardstick = await flood(url);
      link.hang();
      await nextWindow();
      // Held at most for the client's command timeout (250 ms), then counted here.
      await expectLimitedAtOnce(url, yardstick);
    } finally {
      await app?.close();
      app = undefined;
      await link.close();
      const left = await redis.keys(`${prefix}*`);
      if (left.length) await redis.del(...left);
    }
  });
});
