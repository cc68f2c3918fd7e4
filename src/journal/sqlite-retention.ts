/**
 * Retention on the embedded journal (`retention.ts`): an expired sandbox
 * grain purged in bounded steps, each one short transaction of the writer
 * thread (`sqlite-writer.ts`), so a purge never holds the journal's writer
 * for more than a step: the event loop reads, on its own connection, which
 * rows the next step deletes, and hands their keys to the writer with the
 * statements below, in the batch the next commit writes.
 *
 * - **The tombstone** (`purged_grains`) is written by the first step. From
 *   then on the grain's rows may be deleted (`events_no_delete` lets a
 *   delete through for a purged grain's rows and the streams held for it,
 *   and for nothing else: the journal stays append-only), and no append to
 *   the grain is taken (`refuse`, asked as an append is staged). It keeps
 *   where the purge stands (`cursor`, `done`), so a purge cut short resumes.
 * - **The steps**, in order: the answer rows and their marks of the grain's
 *   streams (`budget` streams a step, walking their openings by seq), the
 *   snapshot rows, population counts and unsettled intents of the grain, the
 *   streams held for it (an Idempotency-Key's record, a webhook endpoint, an
 *   outbox delivery record: their later events first, their openings last,
 *   so each stays findable until it is gone), then the grain's own events;
 *   each part takes what room the step's budget has left.
 * - **A grain's seq never goes back**: deleting held streams' rows may take
 *   the last seq of a grain they live in (`idempotency`, `webhooks`,
 *   `outbox`), so the
 *   highest seq deleted there is kept (`grain_seq_floor`), and the grain's
 *   next seq follows it (`GRAIN_SEQ`).
 * - **The space** goes back to the file system on a journal created with
 *   `auto_vacuum = INCREMENTAL` (every journal this build creates): the last
 *   steps of a purge run `incremental_vacuum`, `VACUUM_PAGES` pages a step,
 *   until no more than `FREE_PAGES_KEPT` are free. An older journal
 *   (auto_vacuum off) reuses the freed pages for later writes, so its file
 *   stops growing but does not shrink; `legalwork journal vacuum` converts
 *   it, with the service stopped.
 */
import { RecentMap } from '../lib/recent-map.ts';
import type { Database } from './sqlite-driver.ts';
import { EXPIRING_OPENINGS, GrainPurged, HELD_BY, HELD_OPENINGS, kindsSql, NotPurgeable } from './retention.ts';
import type { PurgeStep } from './store.ts';

/** Pages an incremental vacuum step gives back (4 KiB each): measured at about 2 ms on this machine's disk for 128. */
export const VACUUM_PAGES = 128;
/**
 * Free pages kept for the writes to come (8 MiB): a purge gives back only what
 * is free beyond them. Under steady churn the next grains' rows fill the pages
 * the last ones freed; handing each back to the file system and growing the
 * file again at once was most of a purge's cost to the appends beside it
 * (every page moved is written to the WAL).
 */
export const FREE_PAGES_KEPT = 2048;

const EXPIRING = kindsSql(EXPIRING_OPENINGS);
const HELD = kindsSql(HELD_OPENINGS);
const EXPIRES_AT = "json_extract(body, '$.data.expiresAt')";
const HELD_FOR = `json_extract(body, '$.data.${HELD_BY}')`;

/** Set before the first table exists: the journal this build creates gives freed pages back (`incremental_vacuum`). */
export const SPACE_PRAGMA = 'auto_vacuum = INCREMENTAL';

export const RETENTION_SCHEMA = `
CREATE TABLE IF NOT EXISTS purged_grains (
  grain      TEXT    PRIMARY KEY,
  expires_at TEXT    NOT NULL,
  cursor     INTEGER NOT NULL DEFAULT 0,
  done       INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS grain_seq_floor (
  grain TEXT    PRIMARY KEY,
  seq   INTEGER NOT NULL
) WITHOUT ROWID;
-- The TTL-bound grains by expiry, and the streams held for a grain: a handful of openings each, never a scan.
CREATE INDEX IF NOT EXISTS events_expiry ON events (${EXPIRES_AT}) WHERE version = 1 AND kind IN (${EXPIRING});
CREATE INDEX IF NOT EXISTS events_held ON events (${HELD_FOR}) WHERE version = 1 AND kind IN (${HELD});
-- Append-only but for a purge: the rows of a purged grain, and of the streams held for it, may be deleted.
DROP TRIGGER IF EXISTS events_no_delete;
CREATE TRIGGER events_no_delete BEFORE DELETE ON events
  WHEN NOT EXISTS (SELECT 1 FROM purged_grains WHERE grain = old.grain)
   AND NOT EXISTS (SELECT 1 FROM events h INDEXED BY events_by_stream JOIN purged_grains p ON p.grain = json_extract(h.body, '$.data.${HELD_BY}')
                   WHERE h.stream = old.stream AND h.version = 1 AND h.kind IN (${HELD}))
  BEGIN SELECT RAISE(ABORT, 'the journal is append-only: no delete'); END;
`;

/** A grain's last seq: its events' highest, or the highest a purge deleted there if that is higher. */
export const GRAIN_SEQ = 'SELECT max(coalesce((SELECT max(seq) FROM events WHERE grain = g), 0), coalesce((SELECT seq FROM grain_seq_floor WHERE grain = g), 0)) FROM (SELECT ? AS g)';

/** The tables that keep rows by grain beside the events (the caches of its streams, its counts, its unsettled intents): each has its statement below. */
const GRAIN_TABLES = ['snapshots', 'population_ledger', 'transition_counts', 'outbox_pending'] as const;

/** JSON arrays of `[grain, seq]`, as a step names the event rows it deletes. */
const ROWS = "SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(@rows)";

/**
 * The statements a step hands the writer, by name (named parameters; null
 * parameters: run as a script). Built here, prepared by the writer thread
 * (`WriterData.purgeStatements`).
 */
export const PURGE_STATEMENTS: Record<string, string[]> = {
  tombstone: ['INSERT OR IGNORE INTO purged_grains (grain, expires_at) VALUES (@grain, @expiresAt)'],
  cursor: ['UPDATE purged_grains SET cursor = @cursor WHERE grain = @grain'],
  answers: [
    'DELETE FROM answers WHERE stream IN (SELECT value FROM json_each(@streams))',
    'DELETE FROM answers_moved WHERE stream IN (SELECT value FROM json_each(@streams))',
    'DELETE FROM answer_deps WHERE dep IN (SELECT value FROM json_each(@streams))',
  ],
  // The grain's own rows of each cache and count, a table a step.
  snapshots: ['DELETE FROM snapshots WHERE stream IN (SELECT stream FROM snapshots INDEXED BY snapshots_population WHERE grain = @grain LIMIT @limit)'],
  population_ledger: ['DELETE FROM population_ledger WHERE (grain, machine) IN (SELECT grain, machine FROM population_ledger WHERE grain = @grain LIMIT @limit)'],
  transition_counts: ['DELETE FROM transition_counts WHERE (grain, machine, edge) IN (SELECT grain, machine, edge FROM transition_counts WHERE grain = @grain LIMIT @limit)'],
  outbox_pending: ['DELETE FROM outbox_pending WHERE (grain, seq) IN (SELECT grain, seq FROM outbox_pending WHERE grain = @grain LIMIT @limit)'],
  // A held stream's rows, in a grain whose last seq they may hold: the highest deleted there is kept.
  heldEvents: [
    `INSERT INTO grain_seq_floor (grain, seq) SELECT json_extract(value, '$[0]') AS g, max(json_extract(value, '$[1]')) FROM json_each(@rows) WHERE true GROUP BY g
       ON CONFLICT (grain) DO UPDATE SET seq = max(seq, excluded.seq)`,
    `DELETE FROM events WHERE (grain, seq) IN (${ROWS})`,
  ],
  events: [`DELETE FROM events WHERE (grain, seq) IN (${ROWS})`],
  vacuum: [`PRAGMA incremental_vacuum(${VACUUM_PAGES})`],
  done: ['UPDATE purged_grains SET done = 1 WHERE grain = @grain'],
};

/** One write of a step: a statement group's name and its parameters (none: a script). */
export type PurgeWrite = [name: string, params: Record<string, unknown> | null];

/** A step as the writer's batch carries it: its writes, and the streams whose cached versions the journal forgets once it commits. */
export interface PurgeWork {
  writes: PurgeWrite[];
  streams: string[];
}

type EventKey = [grain: string, seq: number, stream: string];

/** How many grains found not purged are remembered (a purge forgets its own at once; past this, the one used longest ago is asked again). */
const LIVE_GRAINS = 100_000;

export class SqliteRetention {
  private readonly stmt;
  /**
   * Grains found not purged, so the check every append makes of each grain
   * it writes to is a lookup, not a statement (the largest frame of an
   * advance's profile, issue 48). Exact: this process is the journal's one
   * writer, and only its own purge writes a tombstone, forgetting the grain
   * here before the step that writes it and again once it is committed (an
   * append staged in between, the tombstone not yet committed, is taken, as
   * it was when every check read the table).
   */
  private readonly live = new RecentMap<string, true>(LIVE_GRAINS);

  constructor(
    private readonly db: Database,
    /** Hands a step to the writer: resolves once it is committed. */
    private readonly commit: (work: PurgeWork) => Promise<unknown>,
  ) {
    this.stmt = {
      purged: db.prepare('SELECT cursor, done FROM purged_grains WHERE grain = ?'),
      refused: db.prepare('SELECT 1 FROM purged_grains WHERE grain = ?').pluck(),
      unfinished: db.prepare('SELECT grain FROM purged_grains WHERE done = 0 LIMIT ?').pluck(),
      expired: db.prepare(`SELECT grain FROM events INDEXED BY events_expiry WHERE version = 1 AND kind IN (${EXPIRING}) AND ${EXPIRES_AT} < ? AND stream = grain ORDER BY ${EXPIRES_AT} LIMIT ?`).pluck(),
      opening: db.prepare(`SELECT ${EXPIRES_AT} FROM events WHERE stream = ? AND version = 1 AND grain = stream AND kind IN (${EXPIRING})`).pluck(),
      openings: db.prepare('SELECT stream, seq FROM events WHERE grain = ? AND seq > ? AND version = 1 ORDER BY seq LIMIT ?').raw(),
      // How many of the grain's rows each table holds, up to a step's budget.
      counted: Object.fromEntries(GRAIN_TABLES.map((t) => [t, db.prepare(`SELECT count(*) FROM (SELECT 1 FROM ${t} WHERE grain = ? LIMIT ?)`).pluck()])),
      // A held stream's later events first, its opening after them (a row is let go only while its opening says whose it is).
      held: db.prepare(`SELECT e.grain, e.seq, e.stream FROM events h INDEXED BY events_held JOIN events e ON e.stream = h.stream AND (e.version > 1) = ?
        WHERE ${HELD_FOR.replace('body', 'h.body')} = ? AND h.version = 1 AND h.kind IN (${HELD}) LIMIT ?`).raw(),
      own: db.prepare('SELECT grain, seq, stream FROM events WHERE grain = ? ORDER BY seq LIMIT ?').raw(),
      freePages: db.prepare('PRAGMA freelist_count').pluck(),
      autoVacuum: db.prepare('PRAGMA auto_vacuum').pluck(),
    };
  }

  /** Throws `GrainPurged` when the grain is purged: asked of every grain an append writes to, as it is staged. */
  refuse(grain: string): void {
    if (this.live.get(grain)) return;
    if (this.stmt.refused.get(grain) !== undefined) throw new GrainPurged(grain);
    this.live.set(grain, true);
  }

  async expiredGrains(before: string, limit: number): Promise<string[]> {
    const unfinished = this.stmt.unfinished.all(limit) as string[];
    return [...unfinished, ...(this.stmt.expired.all(before, limit - unfinished.length) as string[])];
  }

  async isPurged(grain: string): Promise<boolean> {
    return this.stmt.refused.get(grain) !== undefined;
  }

  async purgeGrain(grain: string, budget: number): Promise<PurgeStep> {
    const writes: PurgeWrite[] = [];
    let state = this.stmt.purged.get(grain) as { cursor: number; done: number } | undefined;
    if (!state) {
      const expiresAt = this.stmt.opening.get(grain) as string | undefined;
      if (typeof expiresAt !== 'string') throw new NotPurgeable(grain);
      writes.push(['tombstone', { grain, expiresAt }]);
      state = { cursor: 0, done: 0 };
    }
    if (state.done) return { removed: 0, done: true };
    const { writes: more, streams, ...step } = this.nextStep(grain, state.cursor, budget);
    this.live.delete(grain);
    await this.commit({ writes: [...writes, ...more], streams });
    this.live.delete(grain);
    return step;
  }

  /**
   * The writes of one step: the parts of the purge in order, each taking
   * what room the budget has left, a later part only once every earlier one
   * is cleared by this step (a small grain goes in one step). Nothing left
   * to delete: the free pages given back, then the purge marked done.
   */
  private nextStep(grain: string, cursor: number, budget: number): PurgeWork & PurgeStep {
    const step = { writes: [] as PurgeWrite[], streams: [] as string[], removed: 0, done: false };
    const room = () => budget - step.removed;
    const openings = this.stmt.openings.all(grain, cursor, budget) as Array<[stream: string, seq: number]>;
    if (openings.length) {
      step.writes.push(['answers', { streams: JSON.stringify(openings.map(([stream]) => stream)) }], ['cursor', { grain, cursor: openings[openings.length - 1][1] }]);
      step.removed += openings.length;
    }
    for (const table of GRAIN_TABLES) {
      if (room() <= 0) return step;
      const counted = this.stmt.counted[table].get(grain, room()) as number;
      if (counted) step.writes.push([table, { grain, limit: room() }]);
      step.removed += counted;
    }
    // A held stream's later events, then (once they are all in this step) the openings, then the grain's own events.
    for (const [name, select] of [
      ['heldEvents', () => this.stmt.held.all(1, grain, room())],
      ['heldEvents', () => this.stmt.held.all(0, grain, room())],
      ['events', () => this.stmt.own.all(grain, room())],
    ] as const) {
      if (room() <= 0) return step;
      const rows = select() as EventKey[];
      if (!rows.length) continue;
      step.writes.push([name, { rows: JSON.stringify(rows.map(([g, seq]) => [g, seq])) }]);
      step.streams.push(...new Set(rows.map(([, , stream]) => stream)));
      step.removed += rows.length;
    }
    if (step.removed) return step;
    const free = this.stmt.autoVacuum.get() === 2 ? (this.stmt.freePages.get() as number) : 0;
    if (free > FREE_PAGES_KEPT) return { writes: [['vacuum', null]], streams: [], removed: 0, pages: Math.min(free, VACUUM_PAGES), done: false };
    return { writes: [['done', { grain }]], streams: [], removed: 0, done: true };
  }
}
