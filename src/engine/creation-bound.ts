/**
 * The per-caller creation bound on sandbox grains (POST /workspaces, /tenants,
 * /firms). Sandbox provisioning is keyless, so the bound is what stops one
 * runaway loop from filling the journal with grains nobody will use.
 *
 * A caller is its remote address as the socket reports it (Fastify's
 * `request.ip`, no proxy headers trusted; an IPv6 address by its /64, as the
 * edge hands it here): behind a reverse proxy every caller shares the
 * proxy's address. Each caller may open `limit` grains of each kind
 * per rolling `windowSeconds`; past it the door answers 429 typed BLOCKED with
 * `Retry-After`, the seconds until the oldest counted creation leaves the window.
 * A slot is taken when a creation is admitted, so a burst of concurrent
 * requests cannot slip past the bound.
 *
 * The policy (limit, window, the refusal and its Retry-After) is here; where
 * admissions are counted is an {@link AdmissionLedger}: this process's memory
 * by default (one process on the embedded journal), or the PostgreSQL
 * journal's database when several processes share it
 * (`journal/postgres-admissions.ts`), so together they admit `limit`, not
 * `limit` each.
 */
import type { GrainKind } from '../domain/grain-kinds.ts';
import type { Refusal } from '../domain/refusal.ts';
import { refusal } from '../domain/refusals.ts';
import type { Admission, AdmissionLedger } from '../journal/admissions.ts';

export interface CreationBoundOptions {
  /** Grains of one kind a caller may open per window. */
  limit: number;
  windowSeconds: number;
  /** Wall clock in milliseconds; injected by tests. */
  now?: () => number;
  /** Where admissions are counted (default: this process's memory). */
  ledger?: AdmissionLedger;
}

/** 1000 grains of each kind per caller per rolling hour. */
export const DEFAULT_CREATION_BOUND = { limit: 1000, windowSeconds: 3600 } as const;
/**
 * The most callers whose admissions this process keeps (`MemoryAdmissions`;
 * a caller that opens two kinds of grain counts twice).
 * Callers are addresses, and one client may bring ever more of them (an IPv6
 * network holds billions), so the ledger may not grow with how many it has
 * met: past this many, the callers whose window has emptied are forgotten
 * first, then the one whose last admission is oldest. While at most this
 * many callers opened grains within the window, the bound is exact; past it,
 * a forgotten caller may open its `limit` again, as it could from a new
 * address. At most this many callers, each at most `limit` instants.
 */
export const ADMISSION_CALLERS = 10_000;

/** Admissions counted in this process's memory: exact for one process, and only for one. */
export class MemoryAdmissions implements AdmissionLedger {
  /**
   * Per key: admission instants (ms) still inside the window, oldest first.
   * The keys are kept in the order of their last admission, oldest first (an
   * admission moves its key last), so those whose window has emptied, and
   * those forgotten past the capacity, are the first ones.
   */
  private readonly admitted = new Map<string, number[]>();

  constructor(readonly capacity = ADMISSION_CALLERS) {}

  // Synchronous to the end: the check and the slot taken are one step, whatever else is in flight.
  async admit(key: string, nowMs: number, windowMs: number, limit: number): Promise<Admission> {
    const times = (this.admitted.get(key) ?? []).filter((t) => t > nowMs - windowMs);
    if (times.length >= limit) {
      // Refused: no admission, so the key keeps its place.
      this.admitted.set(key, times);
      return { admitted: false, count: times.length, oldestMs: times[0] };
    }
    times.push(nowMs);
    this.admitted.delete(key);
    this.admitted.set(key, times);
    if (this.admitted.size > this.capacity) this.trim(nowMs - windowMs);
    return { admitted: true };
  }

  /** How many callers are kept (at most the capacity). */
  get size(): number {
    return this.admitted.size;
  }

  /** Forgets, oldest first, the callers with nothing left in the window, then any past the capacity. */
  private trim(horizon: number): void {
    for (const [key, times] of this.admitted) {
      if (times[times.length - 1] > horizon && this.admitted.size <= this.capacity) break;
      this.admitted.delete(key);
    }
  }
}

export class CreationBound {
  readonly limit: number;
  readonly windowSeconds: number;
  private readonly now: () => number;
  private readonly ledger: AdmissionLedger;

  constructor(options: Partial<CreationBoundOptions> = {}) {
    this.limit = options.limit ?? DEFAULT_CREATION_BOUND.limit;
    this.windowSeconds = options.windowSeconds ?? DEFAULT_CREATION_BOUND.windowSeconds;
    this.now = options.now ?? Date.now;
    this.ledger = options.ledger ?? new MemoryAdmissions();
    if (!Number.isInteger(this.limit) || this.limit < 1) throw new Error(`creation bound limit must be a positive integer, got ${this.limit}`);
    if (!Number.isFinite(this.windowSeconds) || this.windowSeconds <= 0) throw new Error(`creation bound window must be a positive number of seconds, got ${this.windowSeconds}`);
  }

  /**
   * Takes one creation slot for `caller`, or returns the 429 refusal (with the
   * seconds to wait) when the caller has used every slot in the window.
   */
  async admit(kind: GrainKind, caller: string): Promise<{ refusal: Refusal; retryAfterSeconds: number } | null> {
    const now = this.now();
    const windowMs = this.windowSeconds * 1000;
    const answer = await this.ledger.admit(`${kind} ${caller}`, now, windowMs, this.limit);
    if (answer.admitted) return null;
    const retryAfterSeconds = Math.max(1, Math.ceil((answer.oldestMs + windowMs - now) / 1000));
    const refused = refusal('CREATION_BOUND', { caller, count: answer.count, kind, windowSeconds: this.windowSeconds, limit: this.limit, retryAfterSeconds }, { retryAfterSeconds, bound: { kind, limit: this.limit, windowSeconds: this.windowSeconds, caller: 'remote address' } });
    return { refusal: refused, retryAfterSeconds };
  }
}
