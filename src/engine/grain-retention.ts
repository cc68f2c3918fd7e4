/**
 * Expired sandbox grains purged (issue 46): a workspace, Tenant or firm is
 * kept for a grace period past its `expiresAt` (its doors answer 404 from
 * the moment it expires), then every row it wrote is deleted by the
 * journal's own purge (`GrainRetention` in `journal/store.ts`, `journal/retention.ts`), a
 * bounded step at a time, and a tombstone keeps its id refused for ever.
 * The top level is never purged: only a grain whose id is a sandbox grain's
 * is asked for, and the journal refuses any grain that did not open as one.
 *
 * - **When.** At the start and then every `intervalMs` (a minute), the
 *   grains whose expiry is more than the grace period ago
 *   (`LEGALWORK_SANDBOX_PURGE_AFTER`, default 24 hours) are purged, oldest
 *   expiry first, a purge cut short (a crash, a stop) resumed first.
 * - **Yielding.** Each step deletes at most `budget` rows in one short
 *   transaction (on SQLite, in the writer thread's next batch, beside the
 *   appends waiting for it), and the sweep rests between steps three times
 *   as long as the step took (`DUTY`), so requests are served throughout a
 *   purge and it takes about a quarter of the journal's time at most.
 * - **One process at a time** on a journal several processes share: the
 *   sweep runs under a lease (`RETENTION_LEASE`); a process that does not
 *   get it leaves the sweep to its holder, and one that loses it stops
 *   after its current step (another takes the purge over where it stood).
 * - **Caches.** A purged grain expired long before, so every door of it
 *   answers 404 from the grain's resolver before any cache is read, on every
 *   process; what a cache still holds of it is never served, and this
 *   process drops the grain's own entry (`forgetGrain`). The others go as
 *   their bounds evict them.
 */
import type { JournalStore } from '../journal/store.ts';
import { sandboxKindOf } from './grains.ts';

/** How long an expired sandbox grain is kept before it is purged: a day, long enough for a late reader to be told it expired rather than never existed, and for a backup to hold it. */
export const DEFAULT_PURGE_AFTER_SECONDS = 24 * 60 * 60;
/** How often expired grains are looked for. */
export const SWEEP_INTERVAL_MS = 60_000;
/** Rows a purge step deletes at most: a grain of ten walked Matters in one step; a step's wall time, commit included, a few milliseconds (docs/benchmarks.md, "Retention"). */
export const PURGE_BUDGET = 200;
/**
 * The share of the time a purge works: after each step it rests three times
 * as long as the step took, so the appends beside it keep most of the
 * journal's writer (a purge at half the time cost them about half their
 * throughput while it ran, docs/benchmarks.md "Retention"); a backlog of
 * 10-Matter grains still goes at several grains a second.
 */
const DUTY = 0.25;
/** Grains read from the journal at a time. */
const GRAINS_PAGE = 100;
/** The lease the sweep runs under on a journal several processes share. */
export const RETENTION_LEASE = 'retention:sandbox-grains';

export interface RetentionOptions {
  /** Seconds past its expiry that a grain is purged; null: never. */
  purgeAfterSeconds?: number | null;
  intervalMs?: number;
  budget?: number;
  /** The wall clock grains expire by (ms): the same as their resolvers'. */
  now?: () => number;
  /** Called with each grain once its purge is done. */
  forgetGrain?: (grain: string) => void;
}

/** Reads `LEGALWORK_SANDBOX_PURGE_AFTER`: seconds (0 or more, at most a year), or `off`; anything else stops the start. */
export function purgeAfterOf(value: string | undefined): number | null {
  if (value === undefined || value.trim() === '') return DEFAULT_PURGE_AFTER_SECONDS;
  if (value === 'off') return null;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds < 0 || seconds > 366 * 24 * 60 * 60) {
    throw new Error(`LEGALWORK_SANDBOX_PURGE_AFTER must be a number of seconds (0 to one year) or "off", got ${JSON.stringify(value)}`);
  }
  return seconds;
}

export class GrainRetention {
  readonly purgeAfterSeconds: number | null;
  private readonly budget: number;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<string[]> | null = null;
  private closed = false;
  /** The lease was taken from this process mid-sweep: it stops after its current step. */
  private leaseLost = false;

  constructor(
    private readonly journal: JournalStore,
    private readonly options: RetentionOptions = {},
  ) {
    this.purgeAfterSeconds = options.purgeAfterSeconds === undefined ? DEFAULT_PURGE_AFTER_SECONDS : options.purgeAfterSeconds;
    this.budget = options.budget ?? PURGE_BUDGET;
    this.now = options.now ?? Date.now;
    journal.shared?.onLeasesLost((names) => {
      if (names.includes(RETENTION_LEASE)) this.leaseLost = true;
    });
  }

  /** Sweeps now, then every interval, until `close`; a sweep that fails (the database away) is told to `failed`, and the next one tries again. */
  start(failed: (error: unknown) => void): void {
    if (this.purgeAfterSeconds === null || this.closed || this.timer) return;
    const tick = () => void this.sweep().catch(failed);
    this.timer = setInterval(tick, this.options.intervalMs ?? SWEEP_INTERVAL_MS);
    this.timer.unref();
    tick();
  }

  /** Purges every grain due; answers the grains it purged (none when another process holds the sweep). One sweep at a time in this process. */
  sweep(): Promise<string[]> {
    this.running ??= this.sweepOnce().finally(() => (this.running = null));
    return this.running;
  }

  private async sweepOnce(): Promise<string[]> {
    if (this.purgeAfterSeconds === null) return [];
    const shared = this.journal.shared;
    if (shared && !(await shared.tryLeases([RETENTION_LEASE])).has(RETENTION_LEASE)) return [];
    this.leaseLost = false;
    const purged: string[] = [];
    try {
      const before = new Date(this.now() - this.purgeAfterSeconds * 1000).toISOString();
      for (;;) {
        // Only sandbox grains are asked for: the journal never lists another, and refuses to purge one.
        const due = (await this.journal.expiredGrains(before, GRAINS_PAGE)).filter((grain) => sandboxKindOf(grain) !== null);
        for (const grain of due) {
          if (!(await this.purge(grain))) return purged;
          purged.push(grain);
          this.options.forgetGrain?.(grain);
        }
        if (due.length < GRAINS_PAGE) return purged;
      }
    } finally {
      if (shared) await shared.releaseLeases([RETENTION_LEASE]);
    }
  }

  /** Steps through one grain's purge; false when stopped before it was done (a close, the lease lost). */
  private async purge(grain: string): Promise<boolean> {
    for (;;) {
      if (this.closed || this.leaseLost) return false;
      const began = performance.now();
      const step = await this.journal.purgeGrain(grain, this.budget);
      if (step.done) return true;
      // Between steps the event loop turns and the journal serves the writes waiting for it: for as long as the step took.
      await new Promise((resolve) => setTimeout(resolve, ((performance.now() - began) * (1 - DUTY)) / DUTY));
    }
  }

  /** Stops sweeping; a sweep under way stops after its current step. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }
}
