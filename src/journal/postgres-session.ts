/**
 * The process's own session on a shared PostgreSQL journal, beside the pool
 * that reads and writes: it LISTENs for the commits other processes
 * announce. This process's leases are rows with an expiry
 * (`postgres-leases.ts`), not this session's locks: a lease outlives a
 * dropped connection while its holder renews it, and a dead holder's
 * expires.
 *
 * Beside it, a few connections hold the locks of `exclusive` regions (one
 * region per connection while it runs, so a region's own queries never wait
 * for a connection a lock holds).
 *
 * When the connection is lost, notices may have been missed: once the
 * session is back (it reconnects with a backoff) every listener hears a
 * commit with grain `null`: read the journal again.
 */
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'eventemitter3';
import pg from 'pg';
import type { PostgresClock } from './postgres-clock.ts';
import type { PostgresLeases } from './postgres-leases.ts';
import type { SharedJournal } from './store.ts';

/** How many `exclusive` regions of one process may hold their locks at once; more wait for a connection. */
const LOCK_CONNECTIONS = 4;
/** An exclusive region's lock: its name with the schema, hashed to 64 bits (one advisory-lock key), so two names practically never share one. */
const REGION_KEY = "hashtextextended(current_schema() || ':' || $1, 7351993)";
const RECONNECT_MS = [100, 250, 500, 1_000, 2_000, 5_000];

interface SessionEvents {
  commit: (grain: string | null, seq: number) => void;
}

export class PostgresSession implements SharedJournal {
  /** Stamped on this process's notices, so it skips its own (it announced those on its bus as it committed them). */
  readonly token = randomBytes(6).toString('hex');
  private client: pg.Client | null = null;
  private readonly events = new EventEmitter<SessionEvents>();
  private reconnects = 0;
  private closed = false;
  private readonly locks: pg.Pool;

  constructor(
    private readonly config: pg.ClientConfig,
    /** The notification channel of this journal's schema: processes on other schemas never hear it. */
    readonly channel: string,
    /** This process's leases, kept in the journal's database. */
    readonly leases: PostgresLeases,
    /** The database's clock, as this process estimates it. */
    readonly clock: PostgresClock,
  ) {
    this.locks = new pg.Pool({ ...config, max: LOCK_CONNECTIONS });
    this.locks.on('error', () => undefined);
  }

  /** Connects and listens; throws when the database cannot be reached (the start-up fails, worded by `pg`). */
  async open(): Promise<void> {
    const client = new pg.Client(this.config);
    await client.connect();
    client.on('notification', (message) => this.heard(message.payload ?? ''));
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    await client.query(`LISTEN ${pg.escapeIdentifier(this.channel)}`);
    this.client = client;
    this.reconnects = 0;
  }

  /** The notice a commit sends on COMMIT: this process's token, the grain's last seq, the grain. */
  notice(grain: string, seq: number): string {
    return `${this.token} ${seq} ${grain}`;
  }

  private heard(payload: string): void {
    const [token, seq, ...grain] = payload.split(' ');
    if (token !== this.token) this.events.emit('commit', grain.join(' '), Number(seq));
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = null;
    client.removeAllListeners('end');
    void client.end().catch(() => undefined);
    void this.reconnect();
  }

  private async reconnect(): Promise<void> {
    while (!this.closed && !this.client) {
      await new Promise((r) => setTimeout(r, RECONNECT_MS[Math.min(this.reconnects++, RECONNECT_MS.length - 1)]).unref());
      if (this.closed) return;
      try {
        await this.open();
        // Whatever was committed while nobody listened: read the journal again.
        this.events.emit('commit', null, 0);
      } catch {
        // Still unreachable: try again after the next backoff.
      }
    }
  }

  onPeerCommit(listener: (grain: string | null, seq: number) => void): void {
    this.events.on('commit', listener);
  }

  onLeasesLost(listener: (names: string[]) => void): void {
    this.leases.onLost(listener);
  }

  /** One round trip for every name; a database that does not answer takes none. */
  async tryLeases(names: string[]): Promise<Set<string>> {
    return this.leases.claim(names).catch(() => new Set<string>());
  }

  now(): number {
    return this.clock.now();
  }

  releaseLeases(names: string[]): Promise<void> {
    return this.leases.release(names).catch(() => undefined);
  }

  /**
   * Runs `work` holding the named lock, which no other process holds at the
   * same time (a session advisory lock, on a connection of its own while
   * the region runs). The caller serializes the same name within the process.
   */
  async exclusive<T>(name: string, work: () => Promise<T>): Promise<T> {
    const client = await this.locks.connect();
    let broken: unknown;
    client.on('error', (error) => (broken = error));
    try {
      await client.query(`SELECT pg_advisory_lock(${REGION_KEY})`, [name]);
      try {
        return await work();
      } finally {
        await client.query(`SELECT pg_advisory_unlock(${REGION_KEY})`, [name]).catch((error) => (broken = error));
      }
    } finally {
      // A connection that failed may still hold the lock: it is closed, which releases it.
      client.release(broken !== undefined ? (broken as Error) : undefined);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.clock.close();
    await this.leases.close();
    const client = this.client;
    this.client = null;
    if (client) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
    }
    await this.locks.end();
  }
}
