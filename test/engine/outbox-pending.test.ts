/**
 * The outbox resumes the unsettled intents alone (issue 38, item 3): the
 * journal keeps them apart, with the intent and with the record that
 * settles it, so a start after many settled intents reads only the few
 * left, never every intent. A journal an earlier build wrote (before the
 * unsettled ones were kept apart) gets them at its first open under this
 * build: the SQLite file at its open, the PostgreSQL schema by migration 6.
 * On a journal several processes share, an intent is born leased to the
 * process that wrote it, and those a live lease holds are left out of the
 * read: that work is under way.
 */
import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../src/compose.ts';
import type { GigPost, SupplyNetwork } from '../../src/domain/supply-network.ts';
import { OUTBOX_GRAIN } from '../../src/engine/outbox.ts';
import { PostgresJournal } from '../../src/journal/postgres.ts';
import { Database } from '../../src/journal/sqlite-driver.ts';
import { SqliteJournal } from '../../src/journal/sqlite.ts';
import { DELIVERY_KIND, intentLeaseOf, type JournalStore, type NewEvent } from '../../src/journal/store.ts';
import { tempDir } from '../helpers/app.ts';
import { dropSchema, freshSchema, TEST_DATABASE_URL, UNDO_RETENTION_MIGRATION } from '../helpers/postgres.ts';
import { until } from '../helpers/wait.ts';
import { rmSync } from 'node:fs';
import { join } from 'node:path';

const closing: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (closing.length) await closing.pop()!();
});

const GRAIN = 'ws_pending';
const fact = (kind: string, data: Record<string, unknown>): NewEvent => ({ kind, at: '2026-01-01T00:00:00.000Z', subject: String(data.actId ?? data.id), summary: kind, data });

/**
 * `total` reserved acts journaled as the catalog does (`capability.escalated`,
 * with their Gig ids), all but `unsettled` of them settled by the outbox's
 * record, as a delivery writes it. Answers the unsettled Gig ids.
 */
async function intents(journal: JournalStore, total: number, unsettled: number): Promise<string[]> {
  const open: string[] = [];
  for (let i = 0; i < total; i++) {
    const gigId = `gig_${String(i).padStart(4, '0')}`;
    const data = { route: 'POST /x', actId: `rc_${i}`, gigId, credential: 'uspto-registration', reservedAct: 'file', matterType: 'patent_provisional' };
    const [intent] = await journal.append(GRAIN, [{ stream: `rc_${i}`, expectedVersion: 0, events: [fact('capability.escalated', data)] }]);
    if (i % Math.floor(total / unsettled) === 0 && open.length < unsettled) {
      open.push(gigId);
      continue;
    }
    await journal.append(OUTBOX_GRAIN, [{ stream: `delivered:${gigId}`, expectedVersion: 0, events: [fact(DELIVERY_KIND, { id: gigId, intent: { grain: intent.grain, stream: intent.stream, seq: intent.seq, kind: intent.kind } })] }]);
  }
  return open;
}

/** The journal, with the rows each read answers counted by method. */
function counted(journal: JournalStore) {
  const rows: Record<string, number[]> = {};
  const proxy = new Proxy(journal, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== 'function' || !['readIntents', 'pendingIntents', 'readTail', 'streamVersion'].includes(String(key))) return typeof value === 'function' ? value.bind(target) : value;
      return async (...args: unknown[]) => {
        const answer = await value.apply(target, args);
        (rows[String(key)] ??= []).push(Array.isArray(answer) ? answer.length : 1);
        return answer;
      };
    },
  });
  return { journal: proxy, rows };
}

function recordingNetwork() {
  const posts: GigPost[] = [];
  const network: SupplyNetwork = {
    async post(gig) {
      posts.push(gig);
      return {};
    },
  };
  return { network, posts };
}

describe('the outbox reads the unsettled intents alone', () => {
  /** A journal of each adapter that a test closes and opens again, as a process stops and the next starts. */
  const reopenable = {
    sqlite: () => {
      const dir = tempDir();
      closing.push(async () => rmSync(dir, { recursive: true, force: true }));
      return async (): Promise<JournalStore> => new SqliteJournal(dir);
    },
    postgres: () => {
      const schema = freshSchema();
      closing.push(() => dropSchema(schema));
      return (): Promise<JournalStore> => PostgresJournal.connect({ url: TEST_DATABASE_URL, schema });
    },
  };

  it.each(['sqlite', 'postgres'] as const)('%s: a start after 300 settled intents reads the 3 left, posts each once, and the next start reads none', async (kind) => {
    const open = reopenable[kind]();
    // One process journals them and stops (on PostgreSQL its close releases the leases its appends took).
    const first = await open();
    const unsettled = await intents(first, 303, 3);
    expect(unsettled).toHaveLength(3);
    await first.close();
    const next = await open();
    closing.push(() => next.close());
    const { journal, rows } = counted(next);
    const { network, posts } = recordingNetwork();
    const app = await createApp({ journal, supply: network });
    closing.push(() => app.close());
    await app.ready();
    await until(async () => (await next.pendingIntents(null, 1000)).length === 0 && posts.length === 3, 'the three to be posted and settled');
    expect(posts.map((p) => p.gigId).sort()).toEqual(unsettled);
    // Every read the outbox made answered the unsettled ones at most: never the 300 settled, nor their records.
    expect(rows.pendingIntents?.length).toBeGreaterThan(0);
    expect(Math.max(...rows.pendingIntents!)).toBeLessThanOrEqual(3);
    expect(rows.readIntents).toBeUndefined();
    expect(rows.readTail).toBeUndefined();
    // A later start reads nothing: no intent is left unsettled.
    const before = rows.pendingIntents!.length;
    expect(await app.services.outbox.resume()).toBe(0);
    expect(rows.pendingIntents!.slice(before)).toEqual([0]);
    expect(posts).toHaveLength(3);
  });

  /** As `reopenable`, and a way to damage a stream's bodies where they are stored, between a close and the next open. */
  const damageable = {
    sqlite: () => {
      const dir = tempDir();
      closing.push(async () => rmSync(dir, { recursive: true, force: true }));
      return {
        open: async (): Promise<JournalStore> => new SqliteJournal(dir),
        damage: async (stream: string) => {
          // Past the journal's append-only guard, as a disk or a hand would; the next open puts the guard back.
          const db = new Database(join(dir, 'journal.db'));
          db.exec('DROP TRIGGER events_no_update');
          db.prepare("UPDATE events SET body = 'not json' WHERE stream = ?").run(stream);
          db.close();
        },
      };
    },
    postgres: () => {
      const schema = freshSchema();
      closing.push(() => dropSchema(schema));
      return {
        open: (): Promise<JournalStore> => PostgresJournal.connect({ url: TEST_DATABASE_URL, schema }),
        damage: async (stream: string) => {
          const db = new pg.Client({ connectionString: TEST_DATABASE_URL });
          await db.connect();
          const events = `${pg.escapeIdentifier(schema)}.events`;
          await db.query(`ALTER TABLE ${events} DISABLE TRIGGER events_no_update`);
          await db.query(`UPDATE ${events} SET body = 'not json' WHERE stream = $1`, [stream]);
          await db.query(`ALTER TABLE ${events} ENABLE TRIGGER events_no_update`);
          await db.end();
        },
      };
    },
  };

  it.each(['sqlite', 'postgres'] as const)('%s: an intent whose body does not read is passed over and said once, and the intents after it are posted', async (kind) => {
    const { open, damage } = damageable[kind]();
    const first = await open();
    const unsettled = await intents(first, 6, 3);
    await first.close();
    // The first unsettled intent's body damaged where it is stored.
    const damaged = `rc_${Number(unsettled[0].slice(4))}`;
    await damage(damaged);
    const next = await open();
    closing.push(() => next.close());
    const { network, posts } = recordingNetwork();
    const app = await createApp({ journal: next, supply: network });
    closing.push(() => app.close());
    const warned = vi.spyOn(app.log, 'warn');
    await app.ready();
    await until(async () => posts.length === 2 && (await next.pendingIntents(null, 100)).length === 1, 'the two readable intents to be posted and settled');
    expect(posts.map((p) => p.gigId).sort()).toEqual(unsettled.slice(1));
    // Still unsettled (nothing was posted for it), and said once however often the outbox passes it.
    await app.services.outbox.resume();
    await app.services.outbox.resume();
    const left = await next.pendingIntents(null, 100);
    expect(left.map((e) => [e.stream, Boolean(e.unreadable)])).toEqual([[damaged, true]]);
    const told = warned.mock.calls.filter(([fields]) => (fields as { stream?: string })?.stream === damaged);
    expect(told).toHaveLength(1);
    expect(JSON.stringify(told[0])).not.toContain('not json');
    expect(posts).toHaveLength(2);
  });

  it('a SQLite journal an earlier build wrote gets its unsettled intents at its first open', async () => {
    const dir = tempDir();
    closing.push(async () => rmSync(dir, { recursive: true, force: true }));
    const first = new SqliteJournal(dir);
    const open = await intents(first, 40, 4);
    await first.close();
    // As an earlier build left it: no table of unsettled intents, no triggers keeping one.
    const raw = new Database(join(dir, 'journal.db'));
    raw.exec('DROP TRIGGER events_outbox_enqueue; DROP TRIGGER events_outbox_settle; DROP TABLE outbox_pending;');
    raw.close();
    const reopened = new SqliteJournal(dir);
    closing.push(() => reopened.close());
    expect((await reopened.pendingIntents(null, 100)).map((e) => e.data.gigId)).toEqual(open);
  });

  it('a PostgreSQL schema an earlier build wrote gets its unsettled intents by migration 6', async () => {
    const schema = freshSchema();
    closing.push(() => dropSchema(schema));
    const first = await PostgresJournal.connect({ url: TEST_DATABASE_URL, schema });
    const open = await intents(first, 40, 4);
    await first.close();
    // As schema 5 left it: migrations 6 to 9 undone.
    const db = new pg.Client({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${schema}` });
    await db.connect();
    await db.query(UNDO_RETENTION_MIGRATION);
    await db.query('DROP TRIGGER events_outbox ON events; DROP FUNCTION outbox_track(); DROP TABLE outbox_pending; DROP TABLE answers; DELETE FROM schema_version WHERE version >= 6');
    await db.end();
    const migrated = await PostgresJournal.connect({ url: TEST_DATABASE_URL, schema });
    closing.push(() => migrated.close());
    expect((await migrated.pendingIntents(null, 100)).map((e) => e.data.gigId)).toEqual(open);
  });

  it('on PostgreSQL, an intent is born leased to the process that wrote it: no sweep reads it until its lease is released or expires', async () => {
    const schema = freshSchema();
    closing.push(() => dropSchema(schema));
    const a = await PostgresJournal.connect({ url: TEST_DATABASE_URL, schema });
    const b = await PostgresJournal.connect({ url: TEST_DATABASE_URL, schema });
    closing.push(() => a.close(), () => b.close());
    const open = await intents(a, 3, 3);
    const gigs = async (j: PostgresJournal) => (await j.pendingIntents(null, 100)).map((e) => e.data.gigId);
    const db = new pg.Client({ connectionString: TEST_DATABASE_URL, options: `-c search_path=${schema}` });
    await db.connect();
    closing.push(() => db.end());
    // Leased in the append that wrote it, to A: neither reads them (A's own are under way in A, its first attempts).
    expect((await db.query<{ holder: string }>("SELECT DISTINCT holder FROM leases WHERE name LIKE 'outbox:%'")).rows).toEqual([{ holder: a.shared.leases.holder }]);
    expect(await gigs(b)).toEqual([]);
    expect(await gigs(a)).toEqual([]);
    // A's first attempt takes (renews) its lease; released, the intent is read by any process.
    const [first] = await a.readIntents(null, 1);
    expect(await a.shared.tryLeases([intentLeaseOf(first)])).toEqual(new Set([intentLeaseOf(first)]));
    await a.shared.releaseLeases([intentLeaseOf(first)]);
    expect(await gigs(b)).toEqual(open.slice(0, 1));
    // A stalled past the expiry of the others: B reads them again.
    await db.query("UPDATE leases SET expires_at = now() - interval '1 second'");
    expect(await gigs(b)).toEqual(open);
  });
});
