/**
 * The per-caller creation bound across processes (issue 16): two journals on
 * one PostgreSQL schema stand for two service processes; their creation
 * bounds count admissions in the database, so together they admit the
 * bound, not the bound each.
 */
import fc from 'fast-check';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { CreationBound, MemoryAdmissions } from '../../src/engine/creation-bound.ts';
import { PostgresAdmissions } from '../../src/journal/postgres-admissions.ts';
import { PostgresJournal, SCHEMA_VERSION } from '../../src/journal/postgres.ts';
import { call, testApp, type TestApp } from '../helpers/app.ts';
import { dropSchema, freshSchema, TEST_DATABASE_URL, UNDO_RETENTION_MIGRATION } from '../helpers/postgres.ts';

const schemas: string[] = [];
const closing: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closing.length) await closing.pop()!();
  while (schemas.length) await dropSchema(schemas.pop()!);
});

/** Two "processes": two journals on one fresh schema. */
async function twoProcesses(): Promise<{ schema: string; a: PostgresJournal; b: PostgresJournal }> {
  const schema = freshSchema();
  schemas.push(schema);
  const a = await PostgresJournal.connect({ url: TEST_DATABASE_URL, schema });
  const b = await PostgresJournal.connect({ url: TEST_DATABASE_URL, schema });
  closing.push(() => a.close(), () => b.close());
  return { schema, a, b };
}

/** A connection of its own on `schema`, closed after the test. */
async function client(schema: string): Promise<pg.Client> {
  const db = new pg.Client({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${schema}` });
  await db.connect();
  closing.push(() => db.end());
  return db;
}

describe('the creation bound on PostgreSQL, across processes', () => {
  it('admits exactly the limit from a concurrent burst split across two processes; the rest wait Retry-After; the window frees them', async () => {
    const { schema, a, b } = await twoProcesses();
    let now = 1_700_000_000_000;
    const bounds = [a, b].map((j) => new CreationBound({ limit: 5, windowSeconds: 60, now: () => now, ledger: j.admissions() }));
    const burst = () => Promise.all(Array.from({ length: 20 }, (_, i) => bounds[i % 2].admit('workspace', '10.0.0.1')));

    const first = await burst();
    expect(first.filter((r) => r === null)).toHaveLength(5);
    const refused = first.filter((r) => r !== null);
    expect(refused).toHaveLength(15);
    for (const r of refused) {
      expect(r.retryAfterSeconds).toBe(60);
      expect(r.refusal.toBody()).toMatchObject({ type: 'BLOCKED', code: 'CREATION_BOUND', retryAfterSeconds: 60, bound: { kind: 'workspace', limit: 5, windowSeconds: 60 } });
    }
    // Another kind, another caller: a bound of its own.
    expect(await bounds[1].admit('firm', '10.0.0.1')).toBeNull();
    expect(await bounds[0].admit('workspace', '10.0.0.2')).toBeNull();

    now += 59_000;
    const waiting = await bounds[1].admit('workspace', '10.0.0.1');
    expect(waiting?.retryAfterSeconds).toBe(1);

    now += 1_000;
    const second = await burst();
    expect(second.filter((r) => r === null)).toHaveLength(5);
    expect(second.filter((r) => r !== null).every((r) => r!.retryAfterSeconds === 60)).toBe(true);

    // The limiter's state stays small: a bucket holds only what its window holds.
    const db = await client(schema);
    const rows = await db.query<{ bucket: string; n: string }>('SELECT bucket, count(*) AS n FROM creation_admissions GROUP BY bucket ORDER BY bucket');
    expect(rows.rows.map((r) => [r.bucket, Number(r.n)])).toEqual([
      ['firm 10.0.0.1', 1],
      ['workspace 10.0.0.1', 5],
      ['workspace 10.0.0.2', 1],
    ]);
  });

  it('answers, from either process, exactly as one process counting in memory does', async () => {
    const { a, b } = await twoProcesses();
    type Step = { on: 0 | 1; kind: 'workspace' | 'tenant' | 'firm'; caller: number; advanceMs: number };
    const step = fc.record({ on: fc.constantFrom<0 | 1>(0, 1), kind: fc.constantFrom<'workspace' | 'tenant' | 'firm'>('workspace', 'tenant', 'firm'), caller: fc.nat(2), advanceMs: fc.constantFrom(0, 0, 500, 4_000, 11_000) });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 4 }), fc.array(step, { minLength: 1, maxLength: 25 }), async (limit, steps: Step[]) => {
        run++;
        let now = 1_700_000_000_000;
        const options = { limit, windowSeconds: 10, now: () => now };
        const shared = [new CreationBound({ ...options, ledger: a.admissions() }), new CreationBound({ ...options, ledger: b.admissions() })];
        const alone = new CreationBound({ ...options, ledger: new MemoryAdmissions() });
        for (const s of steps) {
          now += s.advanceMs;
          const caller = `run${run}-${s.caller}`;
          const [got, expected] = [await shared[s.on].admit(s.kind, caller), await alone.admit(s.kind, caller)];
          const answer = (r: typeof got) => r && { retryAfterSeconds: r.retryAfterSeconds, status: r.refusal.status, body: r.refusal.toBody() };
          expect(answer(got)).toEqual(answer(expected));
        }
      }),
      { numRuns: 30 },
    );
  }, 60_000);

  it('sweeps the rows of callers that never came back, now and then', async () => {
    const { schema } = await twoProcesses();
    const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${schema}` });
    closing.push(() => pool.end());
    const ledger = new PostgresAdmissions(pool, 3);
    const t = 1_700_000_000_000;
    expect(await ledger.admit('workspace gone', t, 10_000, 5)).toEqual({ admitted: true });
    expect(await ledger.admit('workspace gone', t, 10_000, 5)).toEqual({ admitted: true });
    const db = await client(schema);
    const count = async () => Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM creation_admissions')).rows[0].n);
    expect(await count()).toBe(2);
    // The third call sweeps: the other bucket's rows left the window.
    expect(await ledger.admit('workspace here', t + 10_000, 10_000, 5)).toEqual({ admitted: true });
    expect((await db.query('SELECT bucket FROM creation_admissions')).rows).toEqual([{ bucket: 'workspace here' }]);
  });

  it('migrates a journal of schema version 1: the admissions table arrives with version 2, the snapshot rows with version 3, their standing and the population\'s counts with version 4, the leases with 5, the unsettled intents with 6 and 7, the answer rows with 8, retention with 9, the tail\'s entries with 10', async () => {
    const { schema, a, b } = await twoProcesses();
    await a.append('g', [{ stream: 'old', expectedVersion: 0, events: [{ kind: 'x', at: '2026-01-01T00:00:00.000Z', subject: 's', summary: 'x', data: {} }] }]);
    await Promise.all([a.close(), b.close()]);
    const db = await client(schema);
    // Back to version 1, as a database written by the builds before these two.
    await db.query(UNDO_RETENTION_MIGRATION);
    await db.query('DROP FUNCTION creation_admit; DROP TABLE creation_admissions; DROP TABLE snapshots; DROP TABLE population_ledger; DROP TABLE transition_counts; DROP TABLE leases; DROP TRIGGER events_outbox ON events; DROP FUNCTION outbox_track; DROP TABLE outbox_pending; DROP TABLE answers; DELETE FROM schema_version WHERE version >= 2');
    const reopened = await PostgresJournal.connect({ url: TEST_DATABASE_URL, schema });
    closing.push(() => reopened.close());
    expect((await db.query('SELECT max(version) AS v FROM schema_version')).rows[0].v).toBe(SCHEMA_VERSION);
    expect(SCHEMA_VERSION).toBe(10);
    expect(await new CreationBound({ limit: 1, ledger: reopened.admissions() }).admit('tenant', '10.0.0.1')).toBeNull();
    // A stream written before snapshots has none; an append now keeps one.
    expect(await reopened.readSnapshot('old')).toBeNull();
    await reopened.append('g', [{ stream: 'old', expectedVersion: 1, events: [{ kind: 'y', at: '2026-01-01T00:00:00.000Z', subject: 's', summary: 'y', data: {} }], snapshot: { machine: 'm@1#h', state: '{}' } }]);
    expect(await reopened.readSnapshot('old')).toEqual({ version: 2, machine: 'm@1#h', state: '{}' });
  });

  it('holds through HTTP: two services on one journal admit the bound between them, and answer the rest 429 with Retry-After', async () => {
    const { a, b } = await twoProcesses();
    // The apps close their journals; the journals' own closes (afterEach) then find them closed.
    const apps: TestApp[] = [];
    for (const journal of [a, b]) apps.push(await testApp({ journal, creationBound: { limit: 5, windowSeconds: 60 } }));
    closing.push(() => Promise.all(apps.map((app) => app.close())));
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => call(apps[i % 2], 'POST', '/workspaces')));
    expect(results.filter((r) => r.status === 201)).toHaveLength(5);
    const refused = results.filter((r) => r.status === 429);
    expect(refused).toHaveLength(15);
    for (const r of refused) {
      expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
      expect(r.body).toMatchObject({ type: 'BLOCKED', code: 'CREATION_BOUND', bound: { kind: 'workspace', limit: 5, windowSeconds: 60 } });
    }
  });
});
