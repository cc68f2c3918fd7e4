/**
 * The PostgreSQL journal when the database drops its connections (a restart,
 * a failover, an operator's pg_terminate_backend): the writer takes a new
 * connection and appends again (a BEGIN that met a dead connection wrote
 * nothing, so it is begun again on the next), never answering an append it
 * could not commit as a success; the session that hears other processes' commits and
 * reconnects and says that notices may have been missed (grain null)
 * before hearing new ones; a lease is a row, not the session's, and its
 * holder keeps it through the drop (it renews on a new connection).
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { PostgresJournal } from '../../src/journal/postgres.ts';
import type { NewEvent } from '../../src/journal/store.ts';
import { dropSchema, freshSchema, TEST_DATABASE_URL } from '../helpers/postgres.ts';
import { HANG_MS } from '../helpers/wait.ts';

const event = (kind: string): NewEvent => ({ kind, at: '2026-01-01T00:00:00.000Z', subject: 's', summary: kind, data: {} });

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

/** Ends every connection the journals of `schema` hold, as a database restart would. */
async function dropConnections(schema: string): Promise<number> {
  const db = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await db.connect();
  try {
    const { rows } = await db.query<{ ended: boolean }>("SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE application_name LIKE 'legalwork % ' || $1", [schema]);
    return rows.filter((r) => r.ended).length;
  } finally {
    await db.end();
  }
}

describe('the PostgreSQL journal across dropped connections', () => {
  it('appends again on a new connection, and its session reconnects: leases kept, missed notices said, new ones heard', async () => {
    const schema = freshSchema();
    const [one, two] = [await PostgresJournal.connect({ url: TEST_DATABASE_URL, schema }), await PostgresJournal.connect({ url: TEST_DATABASE_URL, schema })];
    cleanup.push(() => dropSchema(schema), () => one.close(), () => two.close());
    const heard: Array<[string | null, number]> = [];
    const lost: string[] = [];
    two.shared.onPeerCommit((grain, seq) => heard.push([grain, seq]));
    two.shared.onLeasesLost((names) => lost.push(...names));

    await one.append('g', [{ stream: 's', expectedVersion: 0, events: [event('a')] }]);
    await expect.poll(() => heard, { timeout: HANG_MS }).toContainEqual(['g', 1]);
    expect(await two.shared.tryLeases(['endpoint'])).toEqual(new Set(['endpoint']));
    expect(await one.shared.tryLeases(['endpoint'])).toEqual(new Set());

    expect(await dropConnections(schema)).toBeGreaterThanOrEqual(3);

    // The writer's connection is gone, and so is every idle one the pool holds: a BEGIN on a dead one wrote
    // nothing, so the append is begun again on the next, until one is alive. Each append lands.
    await one.append('g', [{ stream: 's', expectedVersion: 1, events: [event('b')] }]);
    await one.append('g', [{ stream: 's', expectedVersion: 2, events: [event('c')] }]);
    expect((await one.readStream('s')).map((e) => e.kind)).toEqual(['a', 'b', 'c']);

    // The session was dropped: once it is back it says notices may have been missed. The lease is a row:
    // its holder renews it on a new connection and keeps it, and the other still cannot take it.
    await expect.poll(() => heard, { timeout: HANG_MS }).toContainEqual([null, 0]);
    await two.shared.leases.renew();
    expect(lost).toEqual([]);
    expect(two.shared.leases.holds('endpoint')).toBe(true);
    expect(await one.shared.tryLeases(['endpoint'])).toEqual(new Set());
    await two.shared.releaseLeases(['endpoint']);
    expect(await one.shared.tryLeases(['endpoint'])).toEqual(new Set(['endpoint']));
    const seq = (await one.append('g', [{ stream: 't', expectedVersion: 0, events: [event('d')] }]))[0].seq;
    await expect.poll(() => heard, { timeout: HANG_MS }).toContainEqual(['g', seq]);
  }, 30_000);
});
