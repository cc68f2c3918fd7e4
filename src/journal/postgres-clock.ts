/**
 * The database's clock, as a process on a shared PostgreSQL journal reads
 * it: every time window that compares instants written by different
 * processes (the creation bound, an idempotency record's 24 hours, a
 * sandbox grain's TTL, a rolled API key's expiry, the webhook retry
 * schedule after a handover) reads this, not its own clock, so processes
 * whose clocks disagree still agree on every window's edges.
 *
 * The offset from this process's clock to the database's is sampled at
 * connect and every `SAMPLE_MS` after (one `SELECT clock_timestamp()`),
 * taking the round trip's midpoint as the instant the database read its
 * clock: the estimate is off by at most half the round trip (well under a
 * millisecond on a local network), and a process's clock stepping between
 * samples shifts it for at most `SAMPLE_MS`. Reading it costs no round
 * trip. Leases read `now()` in the database itself (`postgres-leases.ts`).
 */
import type pg from 'pg';

/** How often the offset is sampled again. */
export const SAMPLE_MS = 30_000;

export class PostgresClock {
  /** The database's clock minus this process's, ms. */
  private offset = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly pool: pg.Pool,
    /** This process's wall clock, ms (a test gives one that is off). */
    private readonly local: () => number = () => Date.now(),
    sampleMs = SAMPLE_MS,
  ) {
    this.timer = setInterval(() => void this.sample().catch(() => undefined), sampleMs);
    this.timer.unref();
  }

  /** Reads the database's clock once and keeps the offset; the first call is awaited at connect, so `now` is never a guess. */
  async sample(): Promise<void> {
    const sent = this.local();
    const { rows } = await this.pool.query<{ ms: number }>('SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS ms');
    const received = this.local();
    this.offset = Math.round(rows[0].ms - (sent + received) / 2);
  }

  /** The database's clock now, ms since the epoch. */
  now(): number {
    return this.local() + this.offset;
  }

  close(): void {
    clearInterval(this.timer);
  }
}
