/**
 * The tests bring what they need (issue 33): where nothing answers on the
 * PostgreSQL or Redis URL the run would use, `npm test` starts a throwaway
 * server of its own, and removes it at the end; an explicitly given URL that
 * does not answer fails the run, naming it. Tried here against closed ports,
 * with real servers started and stopped.
 */
import { existsSync } from 'node:fs';
import net from 'node:net';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { ensurePostgres, ensureRedis } from '../scripts/test-services.ts';
import { TEST_DATABASE_URL } from './helpers/postgres.ts';

/** A port that was free a moment ago: nothing answers there. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.on('connect', () => (socket.destroy(), resolve(false)));
    socket.on('error', () => resolve(true));
  });

describe('the services npm test brings', () => {
  it('uses a PostgreSQL that answers as it is, starting nothing', async () => {
    const service = await ensurePostgres({ url: TEST_DATABASE_URL, explicit: false });
    expect(service.url).toBe(TEST_DATABASE_URL);
    expect(service.dataDir).toBeUndefined();
    expect(service.said).toMatch(/the machine's own/);
  });

  it('starts a throwaway PostgreSQL where nothing answers, with a `test` database, and removes it when stopped', async () => {
    const port = await closedPort();
    const service = await ensurePostgres({ url: `postgres://postgres@127.0.0.1:${port}/test`, explicit: false });
    try {
      expect(service.said).toMatch(/started a throwaway server/);
      expect(existsSync(service.dataDir!)).toBe(true);
      const db = new pg.Client({ connectionString: service.url });
      await db.connect();
      const { rows } = await db.query('SELECT current_database() AS name');
      await db.end();
      expect(rows[0].name).toBe('test');
    } finally {
      await service.stop();
    }
    expect(existsSync(service.dataDir!)).toBe(false);
    expect(await refused(Number(new URL(service.url).port))).toBe(true);
  });

  it('fails, naming the URL, when an explicitly given PostgreSQL does not answer', async () => {
    const url = `postgres://postgres@127.0.0.1:${await closedPort()}/test`;
    await expect(ensurePostgres({ url, explicit: true })).rejects.toThrow(`PostgreSQL does not answer at ${url} (LEGALWORK_TEST_DATABASE_URL)`);
  });

  it('starts a throwaway Redis where nothing answers, and removes it when stopped', async () => {
    const port = await closedPort();
    const service = await ensureRedis({ url: `redis://127.0.0.1:${port}`, explicit: false });
    try {
      expect(service.said).toMatch(/started a throwaway server/);
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(Number(new URL(service.url).port), '127.0.0.1', () => socket.write('PING\r\n'));
        socket.on('data', (b) => (socket.destroy(), resolve(b.toString())));
        socket.on('error', reject);
      });
      expect(answer).toBe('+PONG\r\n');
    } finally {
      await service.stop();
    }
    expect(existsSync(service.dataDir!)).toBe(false);
    expect(await refused(Number(new URL(service.url).port))).toBe(true);
  });

  it('fails, naming the URL, when an explicitly given Redis does not answer', async () => {
    const url = `redis://127.0.0.1:${await closedPort()}`;
    await expect(ensureRedis({ url, explicit: true })).rejects.toThrow(`Redis does not answer at ${url} (LEGALWORK_TEST_REDIS_URL)`);
  });
});
