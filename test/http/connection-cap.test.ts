/**
 * The connection cap (issue 24, point 2), over a real listening server: with
 * the cap's connections open, one more is closed as it arrives (never left
 * waiting), the open ones are still served, and a connection that closes
 * frees its slot. Then how LEGALWORK_MAX_CONNECTIONS and
 * LEGALWORK_REQUEST_TIMEOUT_MS are read: the defaults, and a start stopped by
 * a malformed value.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { removeDir, ROOT, spawnChild, spawnService, tempDataDir, type Child } from '../../bench/lib/service.ts';
import { DEFAULT_MAX_CONNECTIONS, DEFAULT_REQUEST_TIMEOUT_MS, defaultMaxConnections, edgeLimitsFromEnv, openFileLimit } from '../../src/http/edge-limits.ts';
import { listeningApp, type TestApp } from '../helpers/app.ts';
import { dropSchema, freshSchema, TEST_DATABASE_URL } from '../helpers/postgres.ts';
import { rawClient, type RawClient } from '../helpers/raw-client.ts';
import { HANG_MS, until } from '../helpers/wait.ts';

const CAP = 3;
let current: { app: TestApp; url: string } | undefined;
const clients: RawClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.destroy();
  await current?.app.close();
  current = undefined;
});

async function open(url: string): Promise<RawClient> {
  const client = await rawClient(url);
  clients.push(client);
  return client;
}

/** One GET /healthz on the client's kept-alive connection; resolves with its status. */
async function healthz(client: RawClient): Promise<number> {
  client.received = '';
  client.write('GET /healthz HTTP/1.1\r\nHost: legalwork.test\r\n\r\n');
  await client.until(() => client.response() !== undefined || client.isClosed, HANG_MS, 'an answer');
  return client.response()?.status ?? 0;
}

describe('LEGALWORK_MAX_CONNECTIONS', () => {
  it('closes a connection beyond the cap as it arrives, keeps serving the open ones, and frees a slot when one closes', async () => {
    // The request timeout far away: nothing but the cap closes a connection in this test.
    current = await listeningApp({ edge: { requestTimeoutMs: 600_000, maxConnections: CAP } });
    const { url } = current;
    const held = [];
    for (let i = 0; i < CAP; i++) {
      const client = await open(url);
      // Answered: the service holds this connection.
      expect(await healthz(client)).toBe(200);
      held.push(client);
    }

    // One more: closed at once, without a byte (it waits on nothing: the timeout is ten minutes away).
    const beyond = await open(url);
    beyond.write('GET /healthz HTTP/1.1\r\nHost: legalwork.test\r\n\r\n');
    await beyond.until(() => beyond.isClosed, HANG_MS, 'the connection beyond the cap to be closed');
    expect(beyond.received).toBe('');

    // An agent's fetch beyond the cap fails at once, with the reset; it is not left waiting for its own timeout.
    const refused = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(HANG_MS) }).then(
      () => 'served',
      (error: Error & { cause?: { code?: string } }) => error.cause?.code ?? error.name,
    );
    expect(refused).toBe('ECONNRESET');

    // The held connections are still served.
    for (const client of held) expect(await healthz(client)).toBe(200);

    // One closes: its slot frees (once the server has seen the close, on a later turn of its loop), and a new
    // connection is served; asked until one is (a connection beyond the cap is closed at once).
    held[0].destroy();
    await held[0].closed;
    await until(async () => (await healthz(await open(url))) === 200, 'a connection admitted once a slot freed');
    // And the cap holds again.
    const again = await open(url);
    await again.until(() => again.isClosed, HANG_MS, 'the connection beyond the cap to be closed');
    expect(again.received).toBe('');
  });

  it('is not there when no edge limits are given (the app in tests, the CLI\'s embedded mode)', async () => {
    current = await listeningApp();
    const many = await Promise.all(Array.from({ length: CAP * 3 }, () => open(current!.url)));
    for (const client of many) expect(await healthz(client)).toBe(200);
  });
});

describe('LEGALWORK_MAX_CONNECTIONS in the real service', () => {
  let child: Child | undefined;
  let dir: string | undefined;
  let schema: string | undefined;
  afterEach(async () => {
    for (const c of clients.splice(0)) c.destroy();
    await child?.kill();
    if (dir) removeDir(dir);
    if (schema) await dropSchema(schema);
    child = dir = schema = undefined;
  });

  /** Opens `n` connections, each sending GET /healthz; resolves once each is answered or closed, or after HANG_MS (those left hanging). */
  async function knock(url: string, n: number) {
    const made = await Promise.all(Array.from({ length: n }, () => open(url)));
    const outcomes = await Promise.all(
      made.map(async (client) => {
        client.write('GET /healthz HTTP/1.1\r\nHost: legalwork.test\r\n\r\n');
        try {
          await client.until(() => client.response() !== undefined || client.isClosed, HANG_MS, 'an answer or a close');
        } catch {
          return 'hanging';
        }
        return client.response()?.status === 200 ? 'served' : client.received === '' ? 'refused' : 'other';
      }),
    );
    return { served: outcomes.filter((o) => o === 'served').length, refused: outcomes.filter((o) => o === 'refused').length, hanging: outcomes.filter((o) => o === 'hanging').length, other: outcomes.filter((o) => o === 'other').length };
  }

  it('one process: serves the cap, closes the rest at once', async () => {
    dir = tempDataDir('legalwork-edge-');
    child = await spawnService(dir, { LEGALWORK_MAX_CONNECTIONS: String(CAP) });
    expect(await knock(child.url, CAP + 2)).toEqual({ served: CAP, refused: 2, hanging: 0, other: 0 });
  });

  it('--processes 2 (PostgreSQL): the cap is each process\'s, and a connection beyond it is closed at once, never passed around the workers', async () => {
    dir = tempDataDir('legalwork-edge-');
    schema = freshSchema();
    child = await spawnChild({ args: [`${ROOT}/bin/legalwork.js`, 'serve', '--processes', '2'], env: { LEGALWORK_DATA: dir, LEGALWORK_DATABASE_URL: TEST_DATABASE_URL, LEGALWORK_DATABASE_SCHEMA: schema, LEGALWORK_MAX_CONNECTIONS: '2' } });
    const seen = await knock(child.url, 8);
    // Four slots in all; the primary deals connections round-robin, so a worker may be dealt one while the other has room.
    expect(seen.hanging).toBe(0);
    expect(seen.other).toBe(0);
    expect(seen.served).toBeGreaterThanOrEqual(2);
    expect(seen.served).toBeLessThanOrEqual(4);
    expect(seen.served + seen.refused).toBe(8);
  });
});

describe('reading the edge limits from the environment', () => {
  it('defaults to a 30 s request timeout and the smaller of 10 000 and half the open-file limit', () => {
    expect(edgeLimitsFromEnv({}, 20_000)).toEqual({ requestTimeoutMs: DEFAULT_REQUEST_TIMEOUT_MS, maxConnections: 10_000 });
    expect(DEFAULT_REQUEST_TIMEOUT_MS).toBe(30_000);
    expect(defaultMaxConnections(1024)).toBe(512);
    expect(defaultMaxConnections(1_048_576)).toBe(DEFAULT_MAX_CONNECTIONS);
    expect(defaultMaxConnections(Infinity)).toBe(DEFAULT_MAX_CONNECTIONS);
    expect(defaultMaxConnections(undefined)).toBe(DEFAULT_MAX_CONNECTIONS);
    // This process's own limit is read (Linux: /proc/self/limits; elsewhere `ulimit -n`).
    const limit = openFileLimit();
    expect(limit).toBeGreaterThan(0);
    expect(edgeLimitsFromEnv({}).maxConnections).toBe(defaultMaxConnections(limit));
  });

  it('takes well-formed values', () => {
    expect(edgeLimitsFromEnv({ LEGALWORK_REQUEST_TIMEOUT_MS: '5000', LEGALWORK_MAX_CONNECTIONS: '200' }, 1024)).toEqual({ requestTimeoutMs: 5000, maxConnections: 200 });
  });

  it('stops the start on a malformed value, or a cap the open-file limit cannot hold, saying what is accepted', () => {
    for (const value of ['abc', '1.5', '-1', '0', '50', '99999999', '30s']) {
      expect(() => edgeLimitsFromEnv({ LEGALWORK_REQUEST_TIMEOUT_MS: value }, 1024), value).toThrow(/LEGALWORK_REQUEST_TIMEOUT_MS must be a whole number of milliseconds from 100 to 3600000/);
    }
    for (const value of ['abc', '0', '-5', '2.5', 'off']) {
      expect(() => edgeLimitsFromEnv({ LEGALWORK_MAX_CONNECTIONS: value }, 1024), value).toThrow(/LEGALWORK_MAX_CONNECTIONS must be a whole number of connections, at least 1 \(default 512 here/);
    }
    expect(() => edgeLimitsFromEnv({ LEGALWORK_MAX_CONNECTIONS: '1024' }, 1024)).toThrow(/LEGALWORK_MAX_CONNECTIONS is 1024, but this process may open only 1024 files \(ulimit -n\)/);
  });

  it('keeps the real service from starting on a malformed value, with the reason on stderr', async () => {
    const dir = tempDataDir('legalwork-edge-');
    try {
      await expect(spawnService(dir, { LEGALWORK_REQUEST_TIMEOUT_MS: '30s' })).rejects.toThrow(/exited \(\d+\) before listening[\s\S]*LEGALWORK_REQUEST_TIMEOUT_MS must be a whole number of milliseconds/);
      await expect(spawnService(dir, { LEGALWORK_MAX_CONNECTIONS: 'many' })).rejects.toThrow(/LEGALWORK_MAX_CONNECTIONS must be a whole number of connections/);
    } finally {
      removeDir(dir);
    }
  });
});
