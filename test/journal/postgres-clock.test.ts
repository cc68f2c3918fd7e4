/**
 * Time windows read the database's clock on PostgreSQL (issue 38, item 3):
 * a process whose own clock is an hour off still reads the database's
 * instant, and two processes whose clocks disagree by two hours count one
 * creation-bound window between them: an admission one stamped is never in
 * the other's future, so the refusal's Retry-After is the window's, not the
 * skew's.
 */
import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../src/compose.ts';
import { PostgresClock } from '../../src/journal/postgres-clock.ts';
import { PostgresJournal } from '../../src/journal/postgres.ts';
import { call } from '../helpers/app.ts';
import { dropSchema, freshSchema, TEST_DATABASE_URL } from '../helpers/postgres.ts';

const HOUR = 3_600_000;
const closing: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closing.length) await closing.pop()!();
});

describe("the database's clock", () => {
  it('is what a process an hour off reads, within far less than its error', async () => {
    const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 2 });
    closing.push(() => pool.end());
    const clock = new PostgresClock(pool, () => Date.now() + HOUR);
    closing.push(async () => clock.close());
    await clock.sample();
    const before = Number((await pool.query<{ ms: number }>('SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS ms')).rows[0].ms);
    const read = clock.now();
    const after = Number((await pool.query<{ ms: number }>('SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS ms')).rows[0].ms);
    // Between two readings of the database's clock, give or take the round trips: an hour's error would be far outside.
    expect(read).toBeGreaterThan(before - 5_000);
    expect(read).toBeLessThan(after + 5_000);
  });

  it('is what two processes two hours apart count the creation bound by: one window, its Retry-After within it', async () => {
    const schema = freshSchema();
    closing.push(() => dropSchema(schema));
    // Two "processes" in one: while each connects and answers, this process's clock is its (an hour ahead, an hour behind).
    const real = Date.now.bind(Date);
    let skew = 0;
    const spy = vi.spyOn(Date, 'now').mockImplementation(() => real() + skew);
    closing.push(async () => spy.mockRestore());
    const as = async <T>(ms: number, work: () => Promise<T>): Promise<T> => {
      skew = ms;
      try {
        return await work();
      } finally {
        skew = 0;
      }
    };
    const ahead = await as(HOUR, () => PostgresJournal.connect({ url: TEST_DATABASE_URL, schema }));
    const behind = await as(-HOUR, () => PostgresJournal.connect({ url: TEST_DATABASE_URL, schema }));
    closing.push(() => ahead.close(), () => behind.close());
    const [a, b] = [await createApp({ journal: ahead, creationBound: { limit: 2, windowSeconds: 60 } }), await createApp({ journal: behind, creationBound: { limit: 2, windowSeconds: 60 } })];
    closing.push(() => a.close(), () => b.close());
    for (let i = 0; i < 2; i++) expect((await as(HOUR, () => call(a, 'POST', '/workspaces'))).status).toBe(201);
    const refused = await as(-HOUR, () => call(b, 'POST', '/workspaces'));
    expect(refused.status).toBe(429);
    // Stamped by each process's own clock, A's admissions would sit two hours in B's future: Retry-After 7260 s.
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
  });
});
