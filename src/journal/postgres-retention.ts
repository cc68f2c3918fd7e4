/**
 * Retention on the PostgreSQL journal (`retention.ts`): an expired sandbox
 * grain purged in bounded steps, each one short transaction on a connection
 * of the pool, beside the writer's (a step locks only the rows it deletes,
 * none an append to another grain waits for). The engine runs the steps on
 * one process at a time, under a lease (`src/engine/grain-retention.ts`).
 *
 * - **The tombstone** is the grain's row in `purged_grains` (where its
 *   purge stands: `cursor`, `done`) and its `grain_heads` row marked
 *   `purged`, written in the first step's transaction under the head's
 *   lock: an append to the grain that holds the lock commits first, and any
 *   later one is refused (`grain_heads_purged`: the append's
 *   subtransaction answers the grain purged, and the others of its batch are
 *   written). The head row stays, so the grain's seq never goes back.
 * - **Deletes**: `events_no_delete` lets a delete through for a purged
 *   grain's rows and the streams held for it, and for nothing else.
 * - **The steps**, in the order of the embedded journal's: the answer rows
 *   of the grain's streams (`budget` streams a step), the snapshot rows,
 *   population counts, unsettled intents and their leases, the streams held
 *   for the grain (later events first), then the grain's own events.
 * - **The space**: deleted rows are dead tuples that autovacuum reclaims for
 *   later rows of the same tables; the files shrink only under `VACUUM FULL`
 *   (docs/postgres.md).
 */
import type pg from 'pg';
import { EXPIRING_OPENINGS, GrainPurged, HELD_BY, HELD_OPENINGS, kindsSql, NotPurgeable } from './retention.ts';
import { INTENT_LEASE_PREFIX, type PurgeStep } from './store.ts';

const EXPIRING = kindsSql(EXPIRING_OPENINGS);
const HELD = kindsSql(HELD_OPENINGS);
const EXPIRES_AT = "(body::jsonb #>> '{data,expiresAt}')";
const HELD_FOR = `(body::jsonb #>> '{data,${HELD_BY}}')`;

/** Migration 9: the tombstones, the indexes a purge finds its rows by, and the guards. */
export const RETENTION_MIGRATION = `
CREATE TABLE purged_grains (grain text PRIMARY KEY, expires_at text NOT NULL, cursor bigint NOT NULL DEFAULT 0, done boolean NOT NULL DEFAULT false);
ALTER TABLE grain_heads ADD COLUMN purged boolean NOT NULL DEFAULT false;
CREATE INDEX events_expiry ON events (${EXPIRES_AT}) WHERE version = 1 AND kind IN (${EXPIRING});
CREATE INDEX events_held ON events (${HELD_FOR}) WHERE version = 1 AND kind IN (${HELD});
CREATE FUNCTION journal_refuse_purged() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
  BEGIN RAISE EXCEPTION USING MESSAGE = json_build_object('stream', null, 'purged', OLD.grain)::text, ERRCODE = 'P0409'; END $$;
CREATE TRIGGER grain_heads_purged BEFORE UPDATE ON grain_heads FOR EACH ROW WHEN (OLD.purged AND NEW.seq <> OLD.seq) EXECUTE FUNCTION journal_refuse_purged();
CREATE FUNCTION journal_delete_only_purged() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
  BEGIN
    IF EXISTS (SELECT 1 FROM purged_grains WHERE grain = OLD.grain)
       OR EXISTS (SELECT 1 FROM events h JOIN purged_grains p ON p.grain = (h.body::jsonb #>> '{data,${HELD_BY}}')
                  WHERE h.stream = OLD.stream AND h.version = 1 AND h.kind IN (${HELD})) THEN
      RETURN OLD;
    END IF;
    RAISE EXCEPTION 'the journal is append-only: no delete';
  END $$;
DROP TRIGGER events_no_delete ON events;
CREATE TRIGGER events_no_delete BEFORE DELETE ON events FOR EACH ROW EXECUTE FUNCTION journal_delete_only_purged();
`;

/** The refusal `journal_append_batch` answers for an append to a purged grain (`grain_heads_purged`'s message), as the adapter rejects it. */
export const purgedRefusal = (conflict: { purged?: string }): GrainPurged | null => (conflict.purged ? new GrainPurged(conflict.purged) : null);

export class PostgresRetention {
  constructor(private readonly pool: pg.Pool) {}

  async expiredGrains(before: string, limit: number): Promise<string[]> {
    const unfinished = (await this.pool.query<{ grain: string }>('SELECT grain FROM purged_grains WHERE NOT done LIMIT $1', [limit])).rows.map((r) => r.grain);
    const { rows } = await this.pool.query<{ grain: string }>(
      `SELECT grain FROM events WHERE version = 1 AND kind IN (${EXPIRING}) AND ${EXPIRES_AT} < $1 AND stream = grain ORDER BY ${EXPIRES_AT} LIMIT $2`,
      [before, limit - unfinished.length],
    );
    return [...unfinished, ...rows.map((r) => r.grain)];
  }

  async isPurged(grain: string): Promise<boolean> {
    return (await this.pool.query('SELECT 1 FROM purged_grains WHERE grain = $1', [grain])).rowCount === 1;
  }

  /** One step, in one transaction. */
  async purgeGrain(grain: string, budget: number): Promise<PurgeStep> {
    const db = await this.pool.connect();
    try {
      await db.query('BEGIN');
      const step = await this.step(db, grain, budget);
      await db.query('COMMIT');
      return step;
    } catch (error) {
      await db.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      db.release();
    }
  }

  private async step(db: pg.PoolClient, grain: string, budget: number): Promise<PurgeStep> {
    const count = async (text: string, values: unknown[]) => (await db.query(text, values)).rowCount ?? 0;
    let state = (await db.query<{ cursor: string; done: boolean }>('SELECT cursor, done FROM purged_grains WHERE grain = $1 FOR UPDATE', [grain])).rows[0];
    if (!state) {
      const opening = (await db.query<{ expires_at: string | null }>(`SELECT ${EXPIRES_AT} AS expires_at FROM events WHERE stream = $1 AND version = 1 AND grain = $1 AND kind IN (${EXPIRING})`, [grain])).rows[0];
      if (typeof opening?.expires_at !== 'string') throw new NotPurgeable(grain);
      // Under the head's lock: an append holding it commits first; every later one meets the mark.
      await db.query('INSERT INTO grain_heads (grain, seq, purged) VALUES ($1, 0, true) ON CONFLICT (grain) DO UPDATE SET purged = true', [grain]);
      await db.query('INSERT INTO purged_grains (grain, expires_at) VALUES ($1, $2) ON CONFLICT DO NOTHING', [grain, opening.expires_at]);
      state = { cursor: '0', done: false };
    }
    if (state.done) return { removed: 0, done: true };
    // The parts of the purge in order, each taking what room the budget has left (a small grain goes in one step);
    // each statement sees what the ones before it deleted.
    let removed = 0;
    const openings = (await db.query<{ stream: string; seq: string }>('SELECT stream, seq FROM events WHERE grain = $1 AND seq > $2 AND version = 1 ORDER BY seq LIMIT $3', [grain, state.cursor, budget])).rows;
    if (openings.length) {
      await db.query('DELETE FROM answers WHERE stream = ANY($1)', [openings.map((o) => o.stream)]);
      await db.query('UPDATE purged_grains SET cursor = $2 WHERE grain = $1', [grain, openings[openings.length - 1].seq]);
      removed += openings.length;
    }
    const held = (later: boolean) =>
      `DELETE FROM events WHERE (grain, seq) IN (SELECT e.grain, e.seq FROM events h JOIN events e ON e.stream = h.stream AND ${later ? 'e.version > 1' : 'e.version = 1'}
         WHERE ${HELD_FOR.replace('body', 'h.body')} = $1 AND h.version = 1 AND h.kind IN (${HELD}) LIMIT $2)`;
    for (const [statement, key] of [
      // The grain's own rows of each cache and count.
      ['DELETE FROM snapshots WHERE stream IN (SELECT stream FROM snapshots WHERE grain = $1 LIMIT $2)', grain],
      ['DELETE FROM population_ledger WHERE (grain, machine) IN (SELECT grain, machine FROM population_ledger WHERE grain = $1 LIMIT $2)', grain],
      ['DELETE FROM transition_counts WHERE (grain, machine, edge) IN (SELECT grain, machine, edge FROM transition_counts WHERE grain = $1 LIMIT $2)', grain],
      ['DELETE FROM outbox_pending WHERE (grain, seq) IN (SELECT grain, seq FROM outbox_pending WHERE grain = $1 LIMIT $2)', grain],
      ['DELETE FROM leases WHERE name IN (SELECT name FROM leases WHERE left(name, length($1)) = $1 LIMIT $2)', `${INTENT_LEASE_PREFIX}${grain}:`],
      // A held stream's later events first, its opening once they are gone (a row is let go only while its opening says whose it is).
      [held(true), grain],
      [held(false), grain],
      ['DELETE FROM events WHERE (grain, seq) IN (SELECT grain, seq FROM events WHERE grain = $1 ORDER BY seq LIMIT $2)', grain],
    ] as const) {
      if (removed >= budget) return { removed, done: false };
      removed += await count(statement, [key, budget - removed]);
    }
    if (removed) return { removed, done: false };
    await db.query('UPDATE purged_grains SET done = true WHERE grain = $1', [grain]);
    return { removed: 0, done: true };
  }
}
