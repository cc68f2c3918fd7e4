/**
 * The transactional outbox: effects leave the process only after the fact
 * that asks for them is durable. An intent (a fact of one of `INTENT_KINDS`)
 * is journaled in the same append as the change that asks for it; the outbox
 * hands it to its kind's consumer, which performs the effect idempotently
 * (keyed by the intent's id, so a repeat does nothing twice) and journals its
 * own answer; the outbox then records the delivery.
 *
 * - A commit that asks for an effect delivers it at once (`deliver`), and the
 *   request waits for that first attempt.
 * - A failed attempt is retried on a backoff, in this process.
 * - A restart (SIGKILL included) resumes every intent without a delivery
 *   record (`resume`): nothing is lost, and an effect already performed is
 *   performed again only as a harmless, idempotent repeat. It reads the
 *   unsettled intents alone (`pendingIntents`: the journal keeps them
 *   apart), never every intent the journal holds.
 * - On a journal several processes share (PostgreSQL), an intent is worked
 *   on by the holder of its lease (`intentLeaseOf`: a row with an expiry
 *   the holder renews, `journal/postgres-leases.ts`), taken before each
 *   attempt and released once the delivery is recorded. An intent is born
 *   leased to the process that commits it (the database writes the lease in
 *   the same append), so no other process takes it before that process's
 *   first attempt. Every process sweeps the unsettled intents no live
 *   process holds every `SWEEP_MS` and takes them, so the work of a process
 *   that died is taken by a live one within `LEASE_SECONDS` + `SWEEP_MS`,
 *   with no restart. On the embedded journal this process is the only one,
 *   and holds every intent.
 *
 * Delivery records live in a grain of their own that no route serves: they
 * are the outbox's bookkeeping, not the customer's history (the customer's
 * tail holds the intent and the answer).
 */
import { HELD_BY } from '../journal/retention.ts';
import { DELIVERY_KIND, INTENT_KINDS, intentLeaseOf, VersionConflict, type IntentCursor, type IntentKind, type JournalEvent, type JournalStore } from '../journal/store.ts';
import { sandboxKindOf } from './grains.ts';
import type { Supervisor } from './supervisor.ts';
import { asBookkeeping } from './idempotency.ts';
import { RecentMap } from '../lib/recent-map.ts';
import { secondsSince, tracing, type ActiveSpan } from '../lib/telemetry.ts';
import { outboxAttempts, outboxOldestSeconds, outboxPending } from './engine-metrics.ts';

/** The grain of delivery records; no route resolves to it. */
export const OUTBOX_GRAIN = 'outbox';

/** How many unsettled intents a resume (or a sweep) reads at a time. */
const RESUME_PAGE = 500;

/** How often each process sweeps the unsettled intents for work no live process holds (a journal several processes share). */
export const SWEEP_MS = 2_000;

/** When a failed delivery is tried again: 1 s, 5 s, 30 s, 2 min, then every 10 min. */
const RETRY_MS = [1_000, 5_000, 30_000, 120_000, 600_000];

/** What a consumer did: delivered (with what the other side answered), or not yet (why). */
export type Attempt<T = unknown> = { delivered: true; answer?: T } | { delivered: false; reason: string };

export interface Consumer {
  /** The intent's id: its delivery record's name, and the effect's idempotency key. */
  idOf(intent: JournalEvent): string;
  /** Performs the effect; throws (or answers `delivered: false`) to be retried. The entity an answer is for may be busy: take its mailbox. */
  deliver(intent: JournalEvent): Promise<Attempt>;
}

const recordOf = (id: string) => `delivered:${id}`;
/** An intent's kind as a span names it: one of the intent kinds, whatever a row says. */
const effectOf = (kind: string): IntentKind | 'unknown' => INTENT_KINDS.find((k) => k === kind) ?? 'unknown';
/** A sandbox grain's record goes with the grain when it is purged (journal/retention.ts). */
const heldFor = (grain: string) => (sandboxKindOf(grain) ? { [HELD_BY]: grain } : {});

export class Outbox {
  private readonly consumers = new Map<string, Consumer>();
  private readonly attempts = new Map<string, Promise<Attempt>>();
  private readonly retries = new Map<string, { timer: NodeJS.Timeout; tries: number; lease: string }>();
  /** The intents this process holds undelivered (an attempt under way, or a retry waiting), by id: when each was journaled (ms). */
  private readonly held = new Map<string, number>();
  private closed = false;
  private sweepTimer: NodeJS.Timeout | null = null;
  private sweeping: Promise<number> | null = null;
  /** Told of an intent whose body does not read, once each (of the last 1,000 told): see `pass`. */
  private onUnreadable: (intent: JournalEvent) => void = () => undefined;
  private readonly told = new RecentMap<string, true>(1_000);

  constructor(private readonly supervisor: Supervisor) {
    // An intent's lease taken from this process (it stalled past the expiry): its retries here stop; the new holder delivers it.
    supervisor.journal.shared?.onLeasesLost((names) => {
      const lost = new Set(names);
      for (const [id, retry] of this.retries) {
        if (!lost.has(retry.lease)) continue;
        clearTimeout(retry.timer);
        this.retries.delete(id);
        this.held.delete(id);
      }
    });
    outboxPending.track(() => this.held.size);
    outboxOldestSeconds.track(() => {
      let oldest = Infinity;
      for (const at of this.held.values()) oldest = Math.min(oldest, at);
      return oldest === Infinity ? 0 : Math.max(0, (Date.now() - oldest) / 1000);
    });
  }

  private get journal(): JournalStore {
    return this.supervisor.journal;
  }

  consume(kind: IntentKind, consumer: Consumer): void {
    this.consumers.set(kind, consumer);
  }

  /**
   * Delivers one intent now (joining an attempt already under way for it); a
   * failure schedules a retry. `perform` stands in for the consumer on this
   * first attempt, for a caller that delivers from where it stands (inside
   * the mailbox of the entity the answer is for).
   */
  deliver(intent: JournalEvent, perform?: (intent: JournalEvent) => Promise<Attempt>): Promise<Attempt> {
    const consumer = this.consumers.get(intent.kind);
    if (!consumer) return Promise.resolve({ delivered: false, reason: `no consumer for ${intent.kind}` });
    const id = consumer.idOf(intent);
    let attempt = this.attempts.get(id);
    if (!attempt) {
      if (!this.held.has(id)) this.held.set(id, Date.parse(intent.at));
      // The effect answers for the intent a commit journaled, not for the request that made it: its answer is journaled whatever became of that request's key.
      attempt = asBookkeeping(async () => {
        if (!(await this.lease(intent))) return { delivered: false as const, reason: 'another process holds its lease (or the database did not answer); the lease holder, or a live process once it expires, delivers it' };
        // Traced as a child of the command that journaled the intent, whichever turn or process delivers it.
        return tracing.span(`outbox ${intent.kind}`, { 'legalwork.effect': effectOf(intent.kind) }, (span) => this.attempt(perform ?? ((i) => consumer.deliver(i)), id, intent, span), { kind: 'client', parent: intent.trace });
      }).finally(() => {
        this.attempts.delete(id);
        // Settled, or left to another process: no longer this one's. A retry waiting keeps it held.
        if (!this.retries.has(id)) this.held.delete(id);
      });
      this.attempts.set(id, attempt);
    }
    return attempt;
  }

  /**
   * Resumes the journaled intents that have no delivery record (at a
   * start); answers how many it resumed. Then, on a journal several
   * processes share, sweeps them every `SWEEP_MS` for work no live process
   * holds. Runs beside the service, so it never throws: a journal closed
   * under it ends it, and the next start resumes again. `onUnreadable` is
   * told of each intent passed over because its body does not read.
   */
  async resume(onUnreadable?: (intent: JournalEvent) => void): Promise<number> {
    if (onUnreadable) this.onUnreadable = onUnreadable;
    const shared = this.journal.shared;
    if (shared && !this.sweepTimer && !this.closed) {
      this.sweepTimer = setInterval(() => void this.sweep(), SWEEP_MS);
      this.sweepTimer.unref();
    }
    return this.sweep();
  }

  /** One pass over the unsettled intents, one at a time. */
  private sweep(): Promise<number> {
    this.sweeping ??= this.pass().finally(() => (this.sweeping = null));
    return this.sweeping;
  }

  /**
   * Reads the unsettled intents a page at a time, yielding between pages (the
   * service answers while a long list resumes), and delivers each this
   * process is not already at: all of them on a journal no other process
   * writes; on a shared one, those whose lease it takes (the read leaves out
   * those a process, this one included, holds a live lease of).
   */
  private async pass(): Promise<number> {
    const shared = this.journal.shared;
    let resumed = 0;
    try {
      for (let after: IntentCursor | null = null; !this.closed; ) {
        const page = await this.journal.pendingIntents(after, RESUME_PAGE);
        const open = page.filter((intent) => {
          // Its effect cannot be made from a body that does not read (whom to post, what): passed over, said once, and the pass goes on past it.
          if (intent.unreadable) return this.passOver(intent);
          const consumer = this.consumers.get(intent.kind);
          return consumer && !this.attempts.has(consumer.idOf(intent)) && !this.retries.has(consumer.idOf(intent));
        });
        let taken = open;
        if (shared) {
          const leased = await shared.tryLeases(open.map(intentLeaseOf));
          taken = open.filter((intent) => leased.has(intentLeaseOf(intent)));
        }
        for (const intent of taken) void this.deliver(intent);
        resumed += taken.length;
        if (page.length < RESUME_PAGE) break;
        after = { grain: page[page.length - 1].grain, seq: page[page.length - 1].seq };
        await new Promise((next) => setImmediate(next));
      }
    } catch {
      // The journal closed (the service is stopping): what is left is resumed at the next start, or by another process.
    }
    return resumed;
  }

  private passOver(intent: JournalEvent): false {
    const key = `${intent.grain} ${intent.seq}`;
    if (!this.told.get(key)) {
      this.told.set(key, true);
      this.onUnreadable(intent);
    }
    return false;
  }

  /** Takes (or renews) the intent's lease: always held on a journal no other process writes. */
  private async lease(intent: JournalEvent): Promise<boolean> {
    const shared = this.journal.shared;
    return !shared || (await shared.tryLeases([intentLeaseOf(intent)])).has(intentLeaseOf(intent));
  }

  /** Stops retrying (the process is stopping; a restart resumes). */
  close(): void {
    this.closed = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    for (const { timer } of this.retries.values()) clearTimeout(timer);
    this.retries.clear();
    this.held.clear();
  }

  private async attempt(perform: (intent: JournalEvent) => Promise<Attempt>, id: string, intent: JournalEvent, span: ActiveSpan): Promise<Attempt> {
    let outcome: Attempt;
    const started = performance.now();
    try {
      outcome = await perform(intent);
    } catch (error) {
      outcome = { delivered: false, reason: error instanceof Error ? error.message : String(error) };
    }
    const result = outcome.delivered ? 'delivered' : 'failed';
    outboxAttempts.observe(secondsSince(started), { effect: intent.kind, outcome: result });
    span.set('legalwork.outcome', result);
    if (!outcome.delivered) {
      span.fail('not delivered: retried');
      this.retryLater(intent, id);
      return outcome;
    }
    this.retries.delete(id);
    try {
      await this.supervisor.appendFact(OUTBOX_GRAIN, recordOf(id), 0, { kind: DELIVERY_KIND, by: 'outbox', note: `${intent.kind} ${id} delivered`, data: { id, intent: { grain: intent.grain, stream: intent.stream, seq: intent.seq, kind: intent.kind }, ...heldFor(intent.grain) } });
    } catch (error) {
      // Another attempt (another process) recorded it first: delivered all the same. Else the
      // record is missing, and a later attempt repeats the (idempotent) effect to write it.
      if (!(error instanceof VersionConflict)) {
        this.retryLater(intent, id);
        return outcome;
      }
    }
    // Settled: the lease goes (its row with it), and no sweep finds the intent again.
    await this.journal.shared?.releaseLeases([intentLeaseOf(intent)]);
    return outcome;
  }

  private retryLater(intent: JournalEvent, id: string): void {
    if (this.closed) return;
    const tries = (this.retries.get(id)?.tries ?? 0) + 1;
    const wait = RETRY_MS[Math.min(tries - 1, RETRY_MS.length - 1)];
    const timer = setTimeout(() => void this.deliver(intent), wait);
    // A pending retry never keeps the process alive: a restart resumes it.
    timer.unref();
    this.retries.set(id, { timer, tries, lease: intentLeaseOf(intent) });
  }
}
