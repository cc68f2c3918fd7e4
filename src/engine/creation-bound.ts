/**
 * The per-caller creation bound on sandbox grains (POST /workspaces, /tenants,
 * /firms). Sandbox provisioning is keyless, so the bound is what stops one
 * runaway loop from filling the journal with grains nobody will use.
 *
 * A caller is its remote address as the socket reports it (Fastify's
 * `request.ip`, no proxy headers trusted): behind a reverse proxy every caller
 * shares the proxy's address. Each caller may open `limit` grains of each kind
 * per rolling `windowSeconds`; past it the door answers 429 typed BLOCKED with
 * `Retry-After`, the seconds until the oldest counted creation leaves the window.
 * A slot is taken when a creation is admitted, so a burst of concurrent
 * requests cannot slip past the bound.
 */
import type { Refusal } from '../domain/refusal.ts';
import { refusal } from '../domain/refusals.ts';
import type { GrainKind } from './workspaces.ts';

export interface CreationBoundOptions {
  /** Grains of one kind a caller may open per window. */
  limit: number;
  windowSeconds: number;
  /** Wall clock in milliseconds; injected by tests. */
  now?: () => number;
}

/** 1000 grains of each kind per caller per rolling hour. */
export const DEFAULT_CREATION_BOUND = { limit: 1000, windowSeconds: 3600 } as const;
/** When this many callers are tracked, callers with nothing left in the window are forgotten. */
const SWEEP_AT = 10_000;

export class CreationBound {
  readonly limit: number;
  readonly windowSeconds: number;
  private readonly now: () => number;
  /** Per `kind caller`: admission instants (ms) still inside the window, oldest first. */
  private readonly admitted = new Map<string, number[]>();

  constructor(options: Partial<CreationBoundOptions> = {}) {
    this.limit = options.limit ?? DEFAULT_CREATION_BOUND.limit;
    this.windowSeconds = options.windowSeconds ?? DEFAULT_CREATION_BOUND.windowSeconds;
    this.now = options.now ?? Date.now;
    if (!Number.isInteger(this.limit) || this.limit < 1) throw new Error(`creation bound limit must be a positive integer, got ${this.limit}`);
    if (!Number.isFinite(this.windowSeconds) || this.windowSeconds <= 0) throw new Error(`creation bound window must be a positive number of seconds, got ${this.windowSeconds}`);
  }

  /**
   * Takes one creation slot for `caller`, or returns the 429 refusal (with the
   * seconds to wait) when the caller has used every slot in the window.
   */
  admit(kind: GrainKind, caller: string): { refusal: Refusal; retryAfterSeconds: number } | null {
    const now = this.now();
    const windowMs = this.windowSeconds * 1000;
    const key = `${kind} ${caller}`;
    const times = (this.admitted.get(key) ?? []).filter((t) => t > now - windowMs);
    if (times.length >= this.limit) {
      this.admitted.set(key, times);
      const retryAfterSeconds = Math.max(1, Math.ceil((times[0] + windowMs - now) / 1000));
      const refused = refusal('CREATION_BOUND', { caller, count: times.length, kind, windowSeconds: this.windowSeconds, limit: this.limit, retryAfterSeconds }, { retryAfterSeconds, bound: { kind, limit: this.limit, windowSeconds: this.windowSeconds, caller: 'remote address' } });
      return { refusal: refused, retryAfterSeconds };
    }
    times.push(now);
    this.admitted.set(key, times);
    if (this.admitted.size > SWEEP_AT) this.sweep(now - windowMs);
    return null;
  }

  private sweep(horizon: number): void {
    for (const [key, times] of this.admitted) {
      if (times[times.length - 1] <= horizon) this.admitted.delete(key);
    }
  }
}
