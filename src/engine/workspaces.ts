/**
 * Sandbox grains: keyless, synthetic, TTL-bound grains (workspace, tenant,
 * firm), each with its own journal tail. A grain's opening is journaled in its
 * own grain, on a stream named by the grain's id, so a restart keeps it; only
 * its TTL expires it. Later declarations about the grain (a Tenant's Offers, a
 * firm's routing) append to the same stream, so the grain's state is a fold of
 * that stream like everything else.
 *
 * The TTL is measured on the wall clock even when `LEGALWORK_CLOCK` is fixed:
 * an expiry is a real-world lifetime, not a position in a replayable run.
 */
import { GRAIN_ID_PREFIX, type GrainKind } from '../domain/grain-kinds.ts';
import { newId } from '../domain/ids.ts';
import { RecentMap } from '../lib/recent-map.ts';
import { refusal } from '../domain/refusals.ts';
import type { JournalEvent } from '../journal/store.ts';
import type { Fact } from '../../machines/fact.ts';
import type { Supervisor } from './supervisor.ts';

/** 24 hours: long enough for a working session, short enough that synthetic state does not pile up. */
export const DEFAULT_SANDBOX_TTL_SECONDS = 24 * 60 * 60;
/** A grain's id is its only capability; these cap how many of each kind are kept decoded in memory. */
const CACHED_GRAINS = 10_000;

/** The refusal of each kind of grain that does not exist or has expired: 404 EMPTY naming the fix. */
const GONE = { workspace: 'WORKSPACE_NOT_FOUND', tenant: 'TENANT_NOT_FOUND', firm: 'FIRM_NOT_FOUND' } as const;

export interface GrainRecord {
  id: string;
  kind: GrainKind;
  openedAt: string;
  expiresAt: string;
  ttlSeconds: number;
}

/**
 * A live grain: its record, how many events its own stream holds, and the
 * events of that stream its state is read from: the opening and the latest
 * declaration of each kind, oldest first (`latestOfEachKind`).
 */
export interface Grain {
  record: GrainRecord;
  /** The stream's version: the expected version of the grain's next declaration. */
  version: number;
  stream: JournalEvent[];
}

/**
 * The opening and the latest event of each kind, in journal order. A grain's
 * state is the latest declaration of each kind (a Tenant's Offers and its
 * routing, a firm's routing), so this is all a grain keeps in memory: keeping
 * the whole stream grew a cached Tenant by every re-declaration, without
 * bound, and folded all of them again on each Matter minted or advanced in it
 * (5 minutes of the soak's mixed load: 3.2 MiB of heap for 66 Tenants, up to
 * 257 declarations each, and 0.8 MiB for 64 firms).
 */
export function latestOfEachKind(stream: JournalEvent[]): JournalEvent[] {
  const latest = new Map<string, JournalEvent>();
  for (const e of stream) latest.set(e.kind, e);
  return [...latest.values()].sort((a, b) => a.version - b.version);
}

/** Validates a TTL in seconds; fractions are allowed (tests use sub-second TTLs). */
export function sandboxTtl(value: number | undefined): number {
  if (value === undefined) return DEFAULT_SANDBOX_TTL_SECONDS;
  if (!Number.isFinite(value) || value <= 0 || value > 366 * 24 * 60 * 60) {
    throw new Error(`LEGALWORK_SANDBOX_TTL must be a positive number of seconds (at most one year), got ${String(value)}`);
  }
  return value;
}

export class SandboxGrains {
  /** Least recently opened or resolved out first; an evicted grain is re-read from the journal. */
  private readonly cache: RecentMap<string, Grain>;
  readonly ttlSeconds: number;

  constructor(
    readonly kind: GrainKind,
    protected readonly supervisor: Supervisor,
    ttlSeconds?: number,
    protected readonly now: () => number = Date.now,
    capacity = CACHED_GRAINS,
  ) {
    this.ttlSeconds = sandboxTtl(ttlSeconds);
    this.cache = new RecentMap(capacity);
  }

  /** Opens a new grain: one journaled `<kind>.opened` fact in the grain's own tail. */
  async open(): Promise<Grain> {
    const id = newId(GRAIN_ID_PREFIX[this.kind]);
    const expiresAt = new Date(this.now() + this.ttlSeconds * 1000).toISOString();
    const written = await this.supervisor.openStream(id, id, { kind: `${this.kind}.opened`, by: 'gate', note: `sandbox ${this.kind} opened; expires at ${expiresAt}`, data: { expiresAt, ttlSeconds: this.ttlSeconds } });
    const grain = { record: recordOf(this.kind, written[0]), version: written.length, stream: written };
    this.cache.set(id, grain);
    return grain;
  }

  /** Is this id one of this kind's (read off its prefix; it may still be unknown or expired)? */
  protected owns(id: string): boolean {
    return id.startsWith(`${GRAIN_ID_PREFIX[this.kind]}_`);
  }

  /** The live grain, or a 404 typed EMPTY naming the fix when unknown, of another kind, or expired. */
  async resolve(id: string): Promise<Grain> {
    let grain = this.cache.get(id);
    if (grain && (await this.movedElsewhere(grain))) grain = undefined;
    if (!grain && this.owns(id)) {
      const stream = await this.supervisor.journal.readStream(id);
      if (stream[0]?.kind === `${this.kind}.opened` && stream[0].grain === id) {
        grain = { record: recordOf(this.kind, stream[0]), version: stream.length, stream: latestOfEachKind(stream) };
        this.cache.set(id, grain);
      }
    }
    if (!grain || this.expired(grain.record)) throw refusal(GONE[this.kind], { id }, { results: [] });
    return grain;
  }

  /**
   * Whether another process has declared on this grain since it was cached
   * (a journal other processes share). A workspace's stream is its opening
   * alone; a tenant's or a firm's grows with its declarations.
   */
  private async movedElsewhere(grain: Grain): Promise<boolean> {
    if (!this.supervisor.journal.shared || this.kind === 'workspace') return false;
    return (await this.supervisor.journal.streamVersion(grain.record.id)) > grain.version;
  }

  expired(record: GrainRecord): boolean {
    return Date.parse(record.expiresAt) <= this.now();
  }

  /** Whole seconds left before the grain expires (never negative). */
  expiresInSeconds(record: GrainRecord): number {
    return Math.max(0, Math.floor((Date.parse(record.expiresAt) - this.now()) / 1000));
  }

  /**
   * Runs `work` on the live grain with its stream locked: declarations made
   * through `declare` inside it are serialized, so each is decided against the
   * grain's latest state and appended at the expected version.
   */
  withGrain<T>(id: string, work: (grain: Grain) => Promise<T>): Promise<T> {
    return this.supervisor.exclusive(`grain:${id}`, async () => work(await this.resolve(id)));
  }

  /** Appends a fact to the grain's own stream. Call only inside `withGrain` for that grain. */
  async declare(grain: Grain, fact: Fact): Promise<JournalEvent> {
    const id = grain.record.id;
    const [written] = await this.supervisor.appendFact(id, id, grain.version, fact);
    // It replaces the earlier declaration of its kind (see `latestOfEachKind`).
    grain.stream = [...grain.stream.filter((e) => e.kind !== written.kind), written];
    grain.version = written.version;
    return written;
  }
}

function recordOf(kind: GrainKind, opened: JournalEvent): GrainRecord {
  return { id: opened.stream, kind, openedAt: opened.at, expiresAt: opened.data.expiresAt as string, ttlSeconds: opened.data.ttlSeconds as number };
}

/** Sandbox workspaces: the same contract as the top level, on synthetic state. */
export class Workspaces extends SandboxGrains {
  constructor(supervisor: Supervisor, ttlSeconds?: number, now?: () => number, capacity?: number) {
    super('workspace', supervisor, ttlSeconds, now, capacity);
  }
}

/** Stamped on every envelope a sandbox grain answers: where the data came from. */
export const grainProvenance = (kind: GrainKind, id: string) => ({ environment: 'sandbox', legalwork: true, synthetic: true, [kind]: id });

/** How each sandbox grain graduates to the next access tier. */
export const GRADUATION: Record<GrainKind, { tier: string; how: string }> = {
  workspace: {
    tier: 'identified',
    how: 'POST /keys with your email, then run the same calls on the top-level surface with Authorization: Bearer <key>; sandbox state does not carry over',
  },
  tenant: {
    tier: 'identified',
    how: 'POST /keys with your email, then declare the same Offers and routing where the identity plane binds the tenant to your principal; sandbox Matters do not carry over',
  },
  firm: {
    tier: 'credential_verified',
    how: 'each member re-executes their Enrollment after the identity provider verifies their license (credential_verified, not live in this preview); sandbox enrollments do not carry over',
  },
};

/** The common fields of a sandbox grain's view. */
export function grainView(grains: SandboxGrains, record: GrainRecord) {
  return {
    id: record.id,
    tier: 'anonymous',
    environment: 'sandbox' as const,
    openedAt: record.openedAt,
    expiresAt: record.expiresAt,
    ttlSeconds: record.ttlSeconds,
    expiresInSeconds: grains.expiresInSeconds(record),
    graduation: GRADUATION[record.kind],
  };
}
