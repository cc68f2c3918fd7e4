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
 *   performed again only as a harmless, idempotent repeat.
 *
 * Delivery records live in a grain of their own that no route serves: they
 * are the outbox's bookkeeping, not the customer's history (the customer's
 * tail holds the intent and the answer).
 */
import { VersionConflict, type IntentCursor, type IntentKind, type JournalEvent, type JournalStore } from '../journal/store.ts';
import type { Supervisor } from './supervisor.ts';
import { asBookkeeping } from './idempotency.ts';

/** The grain of delivery records; no route resolves to it. */
export const OUTBOX_GRAIN = 'outbox';

/** How many intents (and delivery records) resume reads at a time. */
const RESUME_PAGE = 500;

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

const RECORD_PREFIX = 'delivered:';
const recordOf = (id: string) => `${RECORD_PREFIX}${id}`;

export class Outbox {
  private readonly consumers = new Map<string, Consumer>();
  private readonly attempts = new Map<string, Promise<Attempt>>();
  private readonly retries = new Map<string, { timer: NodeJS.Timeout; tries: number }>();
  private closed = false;

  constructor(private readonly supervisor: Supervisor) {}

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
      // The effect answers for the intent a commit journaled, not for the request that made it: its answer is journaled whatever became of that request's key.
      attempt = asBookkeeping(() => this.attempt(perform ?? ((i) => consumer.deliver(i)), id, intent)).finally(() => this.attempts.delete(id));
      this.attempts.set(id, attempt);
    }
    return attempt;
  }

  /**
   * Resumes every journaled intent that has no delivery record (after a
   * restart); answers how many it resumed. Runs beside the service, so it
   * never throws: a journal closed under it ends it, and the next start
   * resumes again.
   *
   * The delivery records are read first, a page of the outbox grain's tail
   * at a time, into one set of ids; then the intents, a page at a time, each
   * checked against the set. Only an intent missing from it (pending, or
   * delivered since the set was read) costs a read of its own. Asking the
   * journal about every intent one by one took 35 s of queries after each
   * start over a million events on PostgreSQL (133,000 intents).
   */
  async resume(): Promise<number> {
    let pending = 0;
    try {
      const delivered = new Set<string>();
      for (let after = 0; !this.closed; ) {
        const page = await this.journal.readTail(OUTBOX_GRAIN, { after, limit: RESUME_PAGE, feed: 'timeline' });
        for (const record of page) if (record.stream.startsWith(RECORD_PREFIX)) delivered.add(record.stream.slice(RECORD_PREFIX.length));
        if (page.length < RESUME_PAGE) break;
        after = page[page.length - 1].seq;
        await new Promise((next) => setImmediate(next));
      }
      for (let after: IntentCursor | null = null; !this.closed; ) {
        const page = await this.journal.readIntents(after, RESUME_PAGE);
        for (const intent of page) {
          const consumer = this.consumers.get(intent.kind);
          if (!consumer) continue;
          const id = consumer.idOf(intent);
          if (delivered.has(id) || (await this.journal.streamVersion(recordOf(id))) > 0) continue;
          pending++;
          void this.deliver(intent);
        }
        if (page.length < RESUME_PAGE) break;
        after = { grain: page[page.length - 1].grain, seq: page[page.length - 1].seq };
        // A page at a time, yielding between pages: the service answers while a long journal resumes.
        await new Promise((next) => setImmediate(next));
      }
    } catch {
      // The journal closed (the service is stopping): what is left is resumed at the next start.
    }
    return pending;
  }

  /** Stops retrying (the process is stopping; a restart resumes). */
  close(): void {
    this.closed = true;
    for (const { timer } of this.retries.values()) clearTimeout(timer);
    this.retries.clear();
  }

  private async attempt(perform: (intent: JournalEvent) => Promise<Attempt>, id: string, intent: JournalEvent): Promise<Attempt> {
    let outcome: Attempt;
    try {
      outcome = await perform(intent);
    } catch (error) {
      outcome = { delivered: false, reason: error instanceof Error ? error.message : String(error) };
    }
    if (!outcome.delivered) {
      this.retryLater(intent, id);
      return outcome;
    }
    this.retries.delete(id);
    try {
      await this.supervisor.appendFact(OUTBOX_GRAIN, recordOf(id), 0, { kind: 'outbox.delivered', by: 'outbox', note: `${intent.kind} ${id} delivered`, data: { id, intent: { grain: intent.grain, stream: intent.stream, seq: intent.seq, kind: intent.kind } } });
    } catch (error) {
      // Another attempt (another process) recorded it first: delivered all the same. Else the
      // record is missing, and a later attempt repeats the (idempotent) effect to write it.
      if (!(error instanceof VersionConflict)) this.retryLater(intent, id);
    }
    return outcome;
  }

  private retryLater(intent: JournalEvent, id: string): void {
    if (this.closed) return;
    const tries = (this.retries.get(id)?.tries ?? 0) + 1;
    const wait = RETRY_MS[Math.min(tries - 1, RETRY_MS.length - 1)];
    const timer = setTimeout(() => void this.deliver(intent), wait);
    // A pending retry never keeps the process alive: a restart resumes it.
    timer.unref();
    this.retries.set(id, { timer, tries });
  }
}
