/**
 * Leases on a shared PostgreSQL journal: the work one process holds (a
 * webhook endpoint's deliveries, an outbox intent's post) and for how long,
 * as rows (`leases`: name, holder, expiry). Another process takes a lease
 * only once it has expired, so when a process dies, or stops renewing (its
 * event loop stalled, its connections cut), a live process takes its work
 * within `LEASE_SECONDS` and the next claim, with no restart.
 *
 * - The claim is one statement, atomic per row: an INSERT of each name, or,
 *   on conflict, an UPDATE only where the row is this holder's or expired.
 *   Two claimers of a free name conflict on its primary key; the later waits
 *   for the earlier's commit and re-checks the condition on the row it left
 *   (no longer expired, another holder): exactly one of them takes it.
 * - Expiries are the database's clock (`now()`), never a process's: the
 *   holder and the taker compare the same instants, whatever their clocks
 *   say.
 * - A holder renews what it holds every `RENEW_MS` in one statement; a name
 *   the renewal no longer finds was taken (the holder stalled past its
 *   expiry), and its listeners hear it lost. When the renewal cannot reach
 *   the database, every lease is taken as lost once its expiry may have
 *   passed (measured on this process's monotonic clock from the last
 *   renewal sent), so a holder never keeps working on one another may hold.
 * - A close releases every lease (a drained process hands its work over at
 *   once); a release is the holder's own row only.
 * - An expired row is the same as none: rows expired a minute ago are
 *   deleted now and then, so names that nobody claims again (an intent
 *   posted, a lease its holder died with) do not pile up.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { leaseHandovers, leaseKind } from './journal-metrics.ts';

/**
 * Migration 5 of the PostgreSQL journal's schema (`MIGRATIONS` in
 * `postgres.ts`). Applied databases hold it as written: never edit it; a
 * change is a new migration.
 */
export const LEASES_MIGRATION = `
CREATE TABLE leases (
  name       text        PRIMARY KEY,
  holder     text        NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX leases_by_holder ON leases (holder);
`;

/** How long a lease lasts past its last renewal. */
export const LEASE_SECONDS = 10;
/** How often a holder renews what it holds: three renewals fit in one lease, so one slow renewal loses nothing. */
export const RENEW_MS = 3_000;
/** Every this many renewals, rows expired a minute ago are deleted. */
const PRUNE_EVERY = 20;

export interface LeaseOptions {
  leaseSeconds?: number;
  renewMs?: number;
  /** Who holds (default: host, pid and a random tag): what an operator sees in `leases.holder`. */
  holder?: string;
}

/** A holder's name: host, pid and a random tag, so an operator reading `leases` knows the process, and a restarted pid is another holder. */
export function leaseHolder(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
}

/**
 * The setting each of the journal's connections carries its process's
 * holder in (a connection option), so the database can lease an intent to
 * the process whose append writes it, in that append (`postgres-outbox.ts`).
 */
export const HOLDER_SETTING = 'legalwork.lease_holder';

export class PostgresLeases {
  readonly holder: string;
  readonly leaseSeconds: number;
  private readonly held = new Set<string>();
  private readonly lostListeners: Array<(names: string[]) => void> = [];
  /** When the last renewal (or claim) that reached the database was sent: what this process's hold is measured from. */
  private confirmedAt = performance.now();
  private renewals = 0;
  private renewing: Promise<void> | null = null;
  private readonly timer: NodeJS.Timeout;
  private closed = false;

  constructor(
    /** The journal's pool: its connections have the journal's schema on their search path. */
    private readonly pool: pg.Pool,
    options: LeaseOptions = {},
  ) {
    this.holder = options.holder ?? leaseHolder();
    this.leaseSeconds = options.leaseSeconds ?? LEASE_SECONDS;
    this.timer = setInterval(() => void this.renew(), options.renewMs ?? RENEW_MS);
    this.timer.unref();
  }

  /** Takes each name no other holder has (or whose lease expired); answers the names this holder has now. */
  async claim(names: string[]): Promise<Set<string>> {
    const wanted = [...new Set(names)];
    if (this.closed || wanted.length === 0) return new Set();
    const sent = performance.now();
    // The rows are taken in the names' order, the same for every holder: two claims of overlapping names in
    // different orders would each lock a row the other waits for (a deadlock, seen in CI).
    // `before`: who held each name as the claim began, so a lease taken from another holder (expired: it died or stalled) is told apart.
    const { rows } = await this.pool.query<{ name: string; handedOver: boolean }>(
      `WITH before AS (SELECT name, holder FROM leases WHERE name = ANY($1::text[]))
       INSERT INTO leases (name, holder, expires_at) SELECT n, $2, now() + make_interval(secs => $3) FROM unnest($1::text[]) n ORDER BY n
       ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
       WHERE leases.holder = excluded.holder OR leases.expires_at <= now()
       RETURNING name, EXISTS (SELECT 1 FROM before b WHERE b.name = leases.name AND b.holder <> $2) AS "handedOver"`,
      [wanted, this.holder, this.leaseSeconds],
    );
    for (const row of rows) if (row.handedOver) leaseHandovers.inc({ lease: leaseKind(row.name) });
    const taken = new Set(rows.map((r) => r.name));
    // Renewed only what it took: one the claim also held stays measured from the claim, which is later.
    if (this.held.size === 0) this.confirmedAt = sent;
    for (const name of taken) this.held.add(name);
    return taken;
  }

  /** Gives names up (the work is done): another may take them at once. */
  async release(names: string[]): Promise<void> {
    const mine = names.filter((n) => this.held.delete(n));
    if (mine.length === 0) return;
    const release = () => this.pool.query('DELETE FROM leases WHERE holder = $1 AND name = ANY($2::text[])', [this.holder, mine]);
    // Once more on a failure: a pooled connection the database just ended fails the first; a release that fails twice expires instead.
    await release().catch(release);
  }

  /** Does this holder still hold `name` (as far as its last renewal says)? */
  holds(name: string): boolean {
    return this.held.has(name);
  }

  onLost(listener: (names: string[]) => void): void {
    this.lostListeners.push(listener);
  }

  /** Extends every lease held; names the database no longer gives this holder are lost. One renewal at a time. */
  renew(): Promise<void> {
    this.renewing ??= this.renewOnce().finally(() => (this.renewing = null));
    return this.renewing;
  }

  private async renewOnce(): Promise<void> {
    if (this.closed) return;
    const sent = performance.now();
    const names = [...this.held];
    try {
      if (++this.renewals % PRUNE_EVERY === 0) await this.pool.query("DELETE FROM leases WHERE expires_at < now() - interval '1 minute'");
      if (names.length === 0) {
        this.confirmedAt = sent;
        return;
      }
      const { rows } = await this.pool.query<{ name: string }>('UPDATE leases SET expires_at = now() + make_interval(secs => $3) WHERE holder = $1 AND name = ANY($2::text[]) RETURNING name', [this.holder, names, this.leaseSeconds]);
      this.confirmedAt = sent;
      const kept = new Set(rows.map((r) => r.name));
      this.lose(names.filter((n) => !kept.has(n)));
    } catch {
      // The database did not answer: past the lease's length since the last renewal it answered, another may hold them.
      if (performance.now() - this.confirmedAt >= this.leaseSeconds * 1000) this.lose([...this.held]);
    }
  }

  private lose(names: string[]): void {
    const lost = names.filter((n) => this.held.delete(n));
    if (lost.length === 0) return;
    for (const listener of this.lostListeners) listener(lost);
  }

  /** Stops renewing and releases every lease held, so a live process takes the work at its next claim. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    await this.renewing?.catch(() => undefined);
    this.held.clear();
    await this.pool.query('DELETE FROM leases WHERE holder = $1', [this.holder]).catch(() => undefined);
  }
}
