/**
 * Retention (journal/retention.ts), the same tests on every adapter: an
 * expired sandbox grain purged in bounded steps leaves nothing it wrote (its
 * tombstone aside), takes the streams held for it in other grains along, and
 * touches nothing else; a purged grain takes no append again; the top level
 * is never purged; a grain's seq never goes back.
 */
import { rmSync } from 'node:fs';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { Database } from '../../src/journal/sqlite-driver.ts';
import { MemoryJournal } from '../../src/journal/memory.ts';
import { PostgresJournal } from '../../src/journal/postgres.ts';
import { GrainPurged, NotPurgeable } from '../../src/journal/retention.ts';
import { SqliteJournal } from '../../src/journal/sqlite.ts';
import { FREE_PAGES_KEPT } from '../../src/journal/sqlite-retention.ts';
import type { JournalStore, NewEvent, StreamWrite } from '../../src/journal/store.ts';
import { tempDir } from '../helpers/app.ts';
import { dropSchema, freshSchema, TEST_DATABASE_URL } from '../helpers/postgres.ts';

const PAST = '2026-01-01T00:00:00.000Z';
const FUTURE = '2099-01-01T00:00:00.000Z';
const MACHINE = 'matter@1#test';

const fact = (kind: string, data: Record<string, unknown> = {}): NewEvent => ({ kind, at: PAST, subject: 's', summary: kind, data });

/** Rows the adapter holds, table by table, for the SQL adapters (null: the memory journal, checked through its reads alone). */
type Census = () => Promise<Record<string, number> | null>;
interface Made {
  journal: JournalStore;
  census: Census;
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** Tables that hold tombstones, which a purge writes rather than deletes. */
const TOMBSTONES = new Set(['purged_grains', 'grain_seq_floor']);

async function sqlite(): Promise<Made> {
  const dir = tempDir();
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const journal = new SqliteJournal(dir);
  return {
    journal,
    census: async () => {
      const db = new Database(journal.file, { readonly: true });
      try {
        const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
        return Object.fromEntries(tables.filter((t) => !TOMBSTONES.has(t)).map((t) => [t, db.prepare(`SELECT count(*) FROM ${t}`).pluck().get() as number]));
      } finally {
        db.close();
      }
    },
  };
}

async function postgres(): Promise<Made> {
  const schema = freshSchema();
  cleanups.push(() => dropSchema(schema));
  const journal = await PostgresJournal.connect({ url: TEST_DATABASE_URL, schema });
  return {
    journal,
    census: async () => {
      const db = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await db.connect();
      try {
        const { rows } = await db.query<{ name: string }>('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1', [schema]);
        const counts: Record<string, number> = {};
        for (const { name } of rows.filter((r) => !TOMBSTONES.has(r.name) && r.name !== 'leases')) {
          // A purged grain's head row stays, marked: it is its tombstone.
          const where = name === 'grain_heads' ? 'WHERE NOT purged' : '';
          counts[name] = Number((await db.query(`SELECT count(*) AS n FROM ${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(name)} ${where}`)).rows[0].n);
        }
        return counts;
      } finally {
        await db.end();
      }
    },
  };
}

const memory = async (): Promise<Made> => ({ journal: new MemoryJournal(), census: async () => null });

/**
 * A sandbox grain as the engine writes one: its opening, a Matter with its
 * snapshot, counts, an intent and a kept answer, an Idempotency-Key record
 * and a webhook endpoint with attempts held for it in their own grains.
 */
async function fillGrain(j: JournalStore, grain: string, expiresAt: string, matters = 1): Promise<string[]> {
  await j.append(grain, [{ stream: grain, expectedVersion: 0, events: [fact('workspace.opened', { expiresAt, ttlSeconds: 1 })] }]);
  const streams = [grain];
  for (let i = 0; i < matters; i++) {
    const stream = `mt_${grain}_${i}`;
    const snapshot = { machine: MACHINE, state: '{}', standing: { path: 'open.intake', facets: 0, entered: { event: 0 } } };
    const matter: StreamWrite = { stream, expectedVersion: 0, events: [fact('matter.opened'), fact('gig.posted', { gigId: `gig_${i}` })], snapshot, transitions: ['a', 'b'] };
    await j.append(grain, [matter, { stream: `idempotency:${stream}`, grain: 'idempotency', expectedVersion: 0, events: [fact('idempotency.claimed', { heldBy: grain })] }]);
    await j.append('idempotency', [{ stream: `idempotency:${stream}`, expectedVersion: 1, events: [fact('idempotency.answered', { heldBy: grain })] }]);
    await j.putAnswer({ stream, grain, tag: 'matter-view', deps: [[stream, 2]], etag: '"e"', body: '{"matter":1}', item: '{"m":1}' });
    // The outbox's record of the Gig post delivered, in its own grain.
    const [posted] = (await j.readStream(stream)).filter((e) => e.kind === 'gig.posted');
    await j.append('outbox', [{ stream: `delivered:${stream}`, expectedVersion: 0, events: [fact('outbox.delivered', { id: stream, intent: { grain, stream, seq: posted.seq, kind: posted.kind }, heldBy: grain })] }]);
    streams.push(stream, `idempotency:${stream}`, `delivered:${stream}`);
  }
  const endpoint = `webhook:${grain}`;
  await j.append('webhooks', [{ stream: endpoint, expectedVersion: 0, events: [fact('webhook.endpoint.created', { ownerGrain: grain, heldBy: grain })] }]);
  await j.append('webhooks', [{ stream: endpoint, expectedVersion: 1, events: [fact('webhook.attempt'), fact('webhook.attempt')] }]);
  return [...streams, endpoint];
}

/** The top level as the engine writes it: a key's grain, its record, its own Idempotency-Key record (held for no sandbox grain). */
async function fillTopLevel(j: JournalStore): Promise<void> {
  await j.append('key_top', [{ stream: 'mt_top', expectedVersion: 0, events: [fact('matter.opened')] }, { stream: 'idempotency:top', grain: 'idempotency', expectedVersion: 0, events: [fact('idempotency.claimed')] }]);
}

async function purgeAll(j: JournalStore, grain: string, budget: number): Promise<number[]> {
  const removed: number[] = [];
  for (;;) {
    const step = await j.purgeGrain(grain, budget);
    if (step.done) return removed;
    expect(step.removed + (step.pages ?? 0)).toBeGreaterThan(0);
    removed.push(step.removed);
  }
}

describe.each([
  ['memory', memory],
  ['sqlite', sqlite],
  ['postgres', postgres],
] as const)('retention on the %s journal', (_name, make) => {
  it('purges every row an expired grain wrote and the streams held for it, in bounded steps, and nothing of anyone else', async () => {
    // The same journal twice, the second with the expired grain too: once it is purged, every table holds what the first does.
    const without = await make();
    await fillTopLevel(without.journal);
    await fillGrain(without.journal, 'ws_live', FUTURE, 2);
    const { journal: j, census } = await make();
    await fillTopLevel(j);
    await fillGrain(j, 'ws_live', FUTURE, 2);
    const streams = await fillGrain(j, 'ws_gone', PAST, 12);
    const heldSeqs = { idempotency: await j.latestSeq('idempotency'), webhooks: await j.latestSeq('webhooks') };

    expect(await j.expiredGrains(new Date().toISOString(), 10)).toEqual(['ws_gone']);
    const removed = await purgeAll(j, 'ws_gone', 5);
    expect(Math.max(...removed)).toBeLessThanOrEqual(5);
    expect(removed.length).toBeGreaterThan(10);

    for (const stream of streams) {
      expect(await j.readStream(stream)).toEqual([]);
      expect(await j.readSnapshot(stream)).toBeNull();
      expect(await j.readAnswer(stream, 'matter-view')).toBeNull();
    }
    expect(await j.readTail('ws_gone', { after: 0, limit: 100, feed: 'timeline' })).toEqual([]);
    expect((await j.population('ws_gone', { tag: MACHINE, id: 'matter', facets: 0 })).states).toEqual([]);
    expect((await j.population('ws_gone', { tag: MACHINE, id: 'matter', facets: 0 })).ledger).toBeNull();
    expect((await j.pendingIntents(null, 100)).map((e) => e.grain)).not.toContain('ws_gone');
    // The grains its held streams lived in keep their seq, and their other streams.
    expect(await j.latestSeq('idempotency')).toBe(heldSeqs.idempotency);
    expect(await j.latestSeq('webhooks')).toBe(heldSeqs.webhooks);
    expect((await j.readTail('idempotency', { after: 0, limit: 100, feed: 'timeline' })).map((e) => e.stream).sort()).toEqual(['idempotency:mt_ws_live_0', 'idempotency:mt_ws_live_0', 'idempotency:mt_ws_live_1', 'idempotency:mt_ws_live_1', 'idempotency:top']);
    expect((await j.readStream('mt_ws_live_1')).length).toBe(2);
    expect(await j.readAnswer('mt_ws_live_1', 'matter-view')).not.toBeNull();
    expect((await j.readStream('mt_top')).length).toBe(1);

    const rows = await census();
    if (rows) expect(rows).toEqual(await without.census());
    await without.journal.close();

    // Done, and never listed again.
    expect(await j.purgeGrain('ws_gone', 5)).toEqual({ removed: 0, done: true });
    expect(await j.expiredGrains(new Date().toISOString(), 10)).toEqual([]);
    await j.close();
  });

  it('takes no append to a purged grain, or to a stream held for it, and writes the others of the same batch', async () => {
    const { journal: j } = await make();
    await fillGrain(j, 'ws_gone', PAST);
    await fillGrain(j, 'ws_live', FUTURE);
    await j.purgeGrain('ws_gone', 1);
    expect(await j.isPurged('ws_gone')).toBe(true);
    expect(await j.isPurged('ws_live')).toBe(false);
    const [late, live] = await Promise.allSettled([
      j.append('ws_gone', [{ stream: 'mt_late', expectedVersion: 0, events: [fact('matter.opened')] }]),
      j.append('ws_live', [{ stream: 'mt_live', expectedVersion: 0, events: [fact('matter.opened')] }]),
    ]);
    expect(late.status === 'rejected' && late.reason).toBeInstanceOf(GrainPurged);
    expect(live.status).toBe('fulfilled');
    await purgeAll(j, 'ws_gone', 100);
    // The grain's id is never reissued: an opening under it is refused too.
    await expect(j.append('ws_gone', [{ stream: 'ws_gone', expectedVersion: 0, events: [fact('workspace.opened', { expiresAt: FUTURE })] }])).rejects.toBeInstanceOf(GrainPurged);
    // A held stream's owner refuses it once purged: its record is gone, and an append that still expects it is refused.
    await expect(j.append('webhooks', [{ stream: 'webhook:ws_gone', expectedVersion: 3, events: [fact('webhook.attempt')] }])).rejects.toThrow();
    expect(await j.readStream('webhook:ws_gone')).toEqual([]);
    expect(await j.readStream('mt_live')).toHaveLength(1);
    await j.close();
  });

  it('never purges the top level, nor a grain it does not know', async () => {
    const { journal: j, census } = await make();
    await fillTopLevel(j);
    await fillGrain(j, 'ws_live', FUTURE);
    // A fact that only looks like a sandbox grain's opening, not on the grain's own stream, opens none.
    await j.append('key_top', [{ stream: 'fake', expectedVersion: 0, events: [fact('workspace.opened', { expiresAt: PAST })] }]);
    const before = await census();
    for (const grain of ['key_top', 'idempotency', 'webhooks', 'ws_unknown', 'mt_top', 'fake']) {
      await expect(j.purgeGrain(grain, 10)).rejects.toBeInstanceOf(NotPurgeable);
      expect(await j.isPurged(grain)).toBe(false);
    }
    expect(await j.expiredGrains(FUTURE, 10)).toEqual([]);
    expect(await census()).toEqual(before);
    expect(await j.readStream('mt_top')).toHaveLength(1);
    await j.close();
  });

  it('lists unfinished purges first, then expired grains earliest first, up to the limit', async () => {
    const { journal: j } = await make();
    await fillGrain(j, 'ws_b', '2026-01-02T00:00:00.000Z');
    await fillGrain(j, 'ws_a', '2026-01-01T00:00:00.000Z');
    await fillGrain(j, 'tn_c', '2026-01-03T00:00:00.000Z');
    await fillGrain(j, 'ws_later', '2026-02-01T00:00:00.000Z');
    expect(await j.expiredGrains('2026-01-10T00:00:00.000Z', 10)).toEqual(['ws_a', 'ws_b', 'tn_c']);
    await j.purgeGrain('tn_c', 1);
    expect((await j.expiredGrains('2026-01-10T00:00:00.000Z', 10))[0]).toBe('tn_c');
    expect(await j.expiredGrains('2026-01-10T00:00:00.000Z', 2)).toEqual(['tn_c', 'ws_a']);
    await j.close();
  });
});

describe('retention on the embedded journal', () => {
  it('still refuses to delete any row of a grain that is not purged, and gives back the freed pages beyond those it keeps for the writes to come', async () => {
    const { journal: j } = await sqlite();
    await fillGrain(j, 'ws_live', FUTURE);
    await fillGrain(j, 'ws_gone', PAST, 20);
    // 16 MiB of documents in the grain: twice the free pages a purge keeps.
    const big = 'x'.repeat(128 * 1024);
    await j.append('ws_gone', [{ stream: 'doc_big', expectedVersion: 0, events: Array.from({ length: 128 }, () => fact('document.recorded', { big })) }]);
    const db = new Database((j as SqliteJournal).file);
    try {
      expect(() => db.prepare("DELETE FROM events WHERE grain = 'ws_live'").run()).toThrow(/append-only/);
      expect(() => db.prepare("DELETE FROM events WHERE stream = 'webhook:ws_live'").run()).toThrow(/append-only/);
      expect(db.pragma('auto_vacuum', { simple: true })).toBe(2);
      const pages = db.pragma('page_count', { simple: true }) as number;
      await purgeAll(j, 'ws_gone', 100);
      expect(db.pragma('freelist_count', { simple: true })).toBeLessThanOrEqual(FREE_PAGES_KEPT);
      expect(pages - (db.pragma('page_count', { simple: true }) as number)).toBeGreaterThan(FREE_PAGES_KEPT);
    } finally {
      db.close();
    }
    await j.close();
  });
});

describe('retention on the PostgreSQL journal', () => {
  it('still refuses to delete any row of a grain that is not purged', async () => {
    const { journal: j } = await postgres();
    await fillGrain(j, 'ws_live', FUTURE);
    const schema = (await (j as unknown as { pool: pg.Pool }).pool.query<{ s: string }>('SELECT current_schema() AS s')).rows[0].s;
    const db = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await db.connect();
    try {
      await expect(db.query(`DELETE FROM ${schema}.events WHERE grain = 'ws_live'`)).rejects.toThrow(/append-only/);
      await expect(db.query(`DELETE FROM ${schema}.events WHERE stream = 'webhook:ws_live'`)).rejects.toThrow(/append-only/);
    } finally {
      await db.end();
    }
    await j.close();
  });
});
