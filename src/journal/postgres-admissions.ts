/**
 * The creation bound's admissions on PostgreSQL: counted in the journal's
 * database, so every service process sharing it admits from one count (a
 * caller gets `limit` grains of a kind per window from all of them together,
 * not `limit` from each). The policy (limit, window, the refusal, Retry-After)
 * stays in `engine/creation-bound.ts`; this is only where admissions are kept.
 *
 * - One row per admission (`creation_admissions`: bucket, instant in ms),
 *   indexed by (bucket, at_ms). This is a limiter's state, not the journal:
 *   rows are deleted once they leave the window, so it stays small.
 * - Race-free across processes: one call of `creation_admit` is one
 *   statement, so one transaction and one round trip. It takes a
 *   transaction-level advisory lock on the bucket first, so admissions to one
 *   bucket run one at a time wherever they come from; each later statement of
 *   the (VOLATILE) function reads a fresh snapshot, which holds every
 *   admission committed before the lock was granted (a lock is released only
 *   after its commit is visible). Then it deletes the bucket's rows that left
 *   the window, counts the rest, and inserts one when under the limit.
 * - The advisory lock's key is two integers, (7351991, hash of schema and
 *   bucket): apart from the journal's single-key migration lock, and apart
 *   per schema (tests run many schemas on one database). Two buckets whose
 *   hashes collide only wait for each other.
 * - Instants are the database's clock as the calling process estimates it
 *   (`postgres-clock.ts`, whole milliseconds; tests inject theirs), so
 *   processes whose clocks disagree still count one window: an admission
 *   one of them stamped is never in another's future.
 * - Every `SWEEP_EVERY` calls a ledger also deletes other buckets' rows that
 *   left the window (callers that never came back), skipping rows another
 *   transaction holds, so the sweep never waits on, or deadlocks with, an
 *   admission.
 */
import type pg from 'pg';
import type { Admission, AdmissionLedger } from './admissions.ts';

/**
 * Migration 2 of the PostgreSQL journal's schema (`MIGRATIONS` in
 * `postgres.ts`). Applied databases hold it as written: never edit it; a
 * change is a new migration.
 */
export const ADMISSIONS_MIGRATION = `
CREATE TABLE creation_admissions (
  bucket text   NOT NULL,
  at_ms  bigint NOT NULL
);
CREATE INDEX creation_admissions_by_bucket ON creation_admissions (bucket, at_ms);
CREATE FUNCTION creation_admit(p_bucket text, p_now_ms bigint, p_window_ms bigint, p_limit integer, p_sweep boolean,
                               OUT admitted boolean, OUT live integer, OUT oldest_ms bigint)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(7351991, hashtext(current_schema() || ' ' || p_bucket));
  DELETE FROM creation_admissions WHERE bucket = p_bucket AND at_ms <= p_now_ms - p_window_ms;
  SELECT count(*), min(at_ms) INTO live, oldest_ms FROM creation_admissions WHERE bucket = p_bucket AND at_ms > p_now_ms - p_window_ms;
  admitted := live < p_limit;
  IF admitted THEN
    INSERT INTO creation_admissions (bucket, at_ms) VALUES (p_bucket, p_now_ms);
  END IF;
  IF p_sweep THEN
    DELETE FROM creation_admissions WHERE ctid IN
      (SELECT ctid FROM creation_admissions WHERE at_ms <= p_now_ms - p_window_ms FOR UPDATE SKIP LOCKED);
  END IF;
END $$;
`;

/** How many calls of one ledger between sweeps of every bucket. */
const SWEEP_EVERY = 1000;

export class PostgresAdmissions implements AdmissionLedger {
  private calls = 0;

  constructor(
    /** The journal's pool: its connections have the journal's schema on their search path. */
    private readonly pool: pg.Pool,
    private readonly sweepEvery = SWEEP_EVERY,
  ) {}

  async admit(key: string, nowMs: number, windowMs: number, limit: number): Promise<Admission> {
    const sweep = ++this.calls % this.sweepEvery === 0;
    const { rows } = await this.pool.query<{ admitted: boolean; live: number; oldest_ms: string | null }>('SELECT * FROM creation_admit($1, $2, $3, $4, $5)', [key, nowMs, windowMs, limit, sweep]);
    const [answer] = rows;
    if (answer.admitted) return { admitted: true };
    return { admitted: false, count: answer.live, oldestMs: Number(answer.oldest_ms) };
  }
}
