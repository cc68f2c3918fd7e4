/**
 * Idempotency records: what makes a retried write safe (Stripe's
 * Idempotency-Key, the IETF httpapi draft). A request that carries a key runs
 * under a claim; the claim joins the journal transaction of the command's
 * first write, so a crash can never leave the command without its record nor
 * the record without the command.
 *
 * **The answer rides in that transaction.** A door whose answer is a pure
 * function of the state its command decided and of what the commit wrote (a
 * Matter's advance, its create) says how to render it (`Claim.render`, set by
 * the HTTP layer), and its command says what it answers before the commit
 * lands (`Command.ahead`): the record is then completed inside the append,
 * once the command's events have their positions (`StreamWrite.completes`),
 * as one row holding the key, what the command wrote and the answer's exact
 * bytes; the door sends those very bytes (`Claim.answer`), serialized once.
 * One transaction, one extra row, nothing after it. Any other door's record
 * is the claim alone, and its answer is journaled once written, before it
 * leaves, as a second record. A retry under the same key then finds, in the
 * journal:
 *
 * - nothing: the first never committed, and the retry runs;
 * - the answer: the same status and body again, and nothing runs;
 * - the claim alone: the first committed and its answer was lost (the
 *   process stopped, or failed, between the commit and the answer). The retry
 *   is refused naming what the first wrote, never run a second time.
 *
 * Records live in a grain of their own that no route serves (the customer's
 * tail holds the command's facts, not its bookkeeping), one stream per
 * (caller, key). A record is kept 24 hours; afterwards it is ignored and the
 * key may name a new request, whose record follows on the same stream (the
 * journal has no delete).
 *
 * The command's writes are found through the request's async context
 * (`AsyncLocalStorage`): every write goes through `Supervisor.append`, which
 * asks `recordJoining` whether this append is the first of a claimed request.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { canonicalJson, sha256Hex } from '../domain/hash.ts';
import { RecentMap } from '../lib/recent-map.ts';
import { HELD_BY } from '../journal/retention.ts';
import { refusal } from '../domain/refusals.ts';
import { VersionConflict, type JournalEvent, type JournalStore, type StreamWrite } from '../journal/store.ts';
import type { Fact } from '../../machines/fact.ts';
import { sandboxKindOf } from './grains.ts';
import { unguarded } from './write-guard.ts';

/** The grain of idempotency records; no route resolves to it. */
export const IDEMPOTENCY_GRAIN = 'idempotency';

/** How long a record answers retries. */
export const KEEP_MS = 24 * 60 * 60 * 1000;

/** How many settled records stay in memory; the rest are read back from the journal when a retry asks. */
const CACHED_RECORDS = 10_000;

/** An answer as it left: status, the headers a retry must see again, the exact body bytes. */
export interface KeptAnswer {
  status: number;
  headers: Record<string, string>;
  payload: string;
}

/** The latest record of a (caller, key): its request, its expiry, and its answer once kept. */
interface Kept {
  fingerprint: string;
  expiresAt: number;
  /** The stream's version after it. */
  version: number;
  answer?: KeptAnswer;
  /** When the command committed, and the streams it wrote (a claim whose answer was lost names them). */
  committedAt?: string;
  wrote?: string[];
}

/** What a request's method, path and body digest to: the same request, whatever its key order or whitespace. */
export const fingerprintOf = (method: string, url: string, body: unknown): string => sha256Hex(`${method}\n${url}\n${canonicalJson(body ?? null)}`);

/**
 * What the records need of the supervisor: its journal, and a fact stamped
 * by its clock (`Supervisor.factWrite`). Named here rather than imported:
 * the supervisor imports this module (`recordJoining`), and this one stays
 * below it.
 */
export interface RecordWriter {
  readonly journal: JournalStore;
  factWrite(stream: string, expectedVersion: number, fact: Fact): StreamWrite;
}

/** What a command answers once its commit lands, from the events the append is about to write (their positions given); undefined: it cannot say before the commit (an escalation answers what the Gig's post brought). */
export type AnswerAhead = (written: JournalEvent[]) => unknown;

const streamOf = (scope: string, key: string) => `idempotency:${sha256Hex(`${scope}\n${key}`)}`;

/** A request running under a key: it may write once its command does, and is settled with its answer. */
export class Claim {
  /** The claim joined its command's transaction. */
  joined = false;
  /** The answer is kept (or the request is over): later appends in its context are not its command. */
  settled = false;
  /**
   * How the door renders what its command answers (the value `AnswerAhead`
   * gives) as the bytes it sends: set by the HTTP layer for a door whose
   * answer is known before its commit lands. Pure: it may run inside the
   * journal's append, and a throw only leaves the record a claim.
   */
  render?: (value: unknown) => KeptAnswer;
  /** The answer committed in the command's own transaction (its record holds it): what the door sends. */
  answer?: KeptAnswer;

  constructor(
    readonly stream: string,
    readonly key: string,
    readonly fingerprint: string,
    readonly expiresAt: number,
    /** The record stream's version before this claim. */
    readonly version: number,
    /** The sandbox grain the record is held for (purged with it: `journal/retention.ts`); none at the top level. */
    readonly heldBy?: string,
  ) {}

  /** What the record's facts say of whose it is: the sandbox grain it goes with, when there is one. */
  get holder(): Record<string, string> {
    return this.heldBy ? { [HELD_BY]: this.heldBy } : {};
  }
}

const requests = new AsyncLocalStorage<Claim>();

/**
 * Runs `work` outside the request's claim: bookkeeping around a command (a
 * key's spend reservation before it, the release after a refusal, a webhook
 * delivery, an effect's answer) is not the command, and must never carry its
 * record, nor the check of the key the request presented (`write-guard.ts`;
 * the spend reservation joins that check itself).
 */
export const asBookkeeping = <T>(work: () => T): T => requests.exit(() => unguarded(work));

/**
 * The claim's record, when this append is the first write of a claimed
 * request's command; else undefined. The record is completed inside the
 * append (`StreamWrite.completes`): with the answer when the command says it
 * ahead (`ahead`) and the door can render it (`Claim.render`), else the
 * claim alone. `landed` is told once the append is durable.
 */
export function recordJoining(supervisor: RecordWriter, writes: StreamWrite[], ahead?: AnswerAhead): { write: StreamWrite; landed(): void; failed(error: unknown): unknown } | undefined {
  const claim = requests.getStore();
  if (!claim || claim.joined || claim.settled) return undefined;
  claim.joined = true;
  const wrote = [...new Set(writes.map((w) => w.stream))];
  let rendered: KeptAnswer | undefined;
  const write: StreamWrite = {
    stream: claim.stream,
    grain: IDEMPOTENCY_GRAIN,
    expectedVersion: claim.version,
    events: [],
    completes: (written) => {
      rendered = answerAhead(claim, ahead, written);
      return supervisor.factWrite(claim.stream, claim.version, rendered ? answeredFact(claim, rendered, wrote) : claimedFact(claim, wrote)).events;
    },
  };
  return {
    write,
    landed() {
      claim.answer = rendered;
    },
    failed(error) {
      // Nothing was written: the claim may join the command's next attempt, if any.
      claim.joined = false;
      rendered = undefined;
      // Another process claimed the key in the meantime: its request runs, this one does not.
      return error instanceof VersionConflict && error.stream === claim.stream ? refusal('IDEMPOTENCY_KEY_IN_USE', { key: claim.key }) : error;
    },
  };
}

/** The door's answer to what the command says it answers, rendered now; undefined when either cannot say (the record is then the claim alone). */
function answerAhead(claim: Claim, ahead: AnswerAhead | undefined, written: JournalEvent[]): KeptAnswer | undefined {
  if (!ahead || !claim.render) return undefined;
  try {
    const value = ahead(written);
    return value === undefined ? undefined : claim.render(value);
  } catch {
    // A render that fails is no reason to refuse a command the Gate accepted: its answer is kept after it, as any door's.
    return undefined;
  }
}

const claimedFact = (claim: Claim, wrote: string[]): Fact => ({
  kind: 'idempotency.claimed',
  by: 'gate',
  note: 'a request under an Idempotency-Key committed',
  data: { fingerprint: claim.fingerprint, expiresAt: new Date(claim.expiresAt).toISOString(), wrote, ...claim.holder },
});

/** The answer as its record holds it; `wrote` when it is the command's own record (journaled in its transaction). */
const answeredFact = (claim: Claim, answer: KeptAnswer, wrote?: string[]): Fact => ({
  kind: 'idempotency.answered',
  by: 'gate',
  note: `the answer (${answer.status}) to a request under an Idempotency-Key`,
  data: { fingerprint: claim.fingerprint, expiresAt: new Date(claim.expiresAt).toISOString(), ...(wrote ? { wrote } : {}), answer, ...claim.holder },
});

/** The latest record of a stream, from its events: a claim, then its answer; or an answer alone (the command wrote nothing). */
function latestOf(events: JournalEvent[]): Kept | null {
  const last = events[events.length - 1];
  if (!last) return null;
  const d = last.data as { fingerprint: string; expiresAt: string; wrote?: string[]; answer?: KeptAnswer };
  const claimed = [last, events[events.length - 2]].find((e) => e?.kind === 'idempotency.claimed');
  return {
    fingerprint: d.fingerprint,
    expiresAt: Date.parse(d.expiresAt),
    version: events.length,
    ...(d.answer ? { answer: d.answer } : {}),
    ...(claimed && (claimed.data as { fingerprint: string }).fingerprint === d.fingerprint ? { committedAt: claimed.at, wrote: (claimed.data as { wrote: string[] }).wrote } : {}),
  };
}

export class IdempotencyRecords {
  /** Keys whose request is running in this process. */
  private readonly running = new Set<string>();
  /** Settled records, most recently used last. */
  private readonly cache: RecentMap<string, Kept>;

  constructor(
    private readonly supervisor: RecordWriter,
    /** Wall-clock milliseconds: records expire in real time, whatever the journal's clock. */
    private readonly now: () => number = Date.now,
    capacity = CACHED_RECORDS,
  ) {
    this.cache = new RecentMap(capacity);
  }

  /**
   * Starts a request under `key` for the caller `scope`: answers the kept
   * answer of the same request, or a claim to run it under; refuses the key
   * while another request runs under it (409), for another request (422), or
   * when its first request committed and its answer was lost (409).
   */
  async begin(scope: string, key: string, fingerprint: string, sandbox?: string): Promise<{ replay: KeptAnswer } | { claim: Claim }> {
    const stream = streamOf(scope, key);
    if (this.running.has(stream)) throw refusal('IDEMPOTENCY_KEY_IN_USE', { key });
    // A sandbox grain's record is read from the journal, never this process's cache: the grain's purge (on any process) takes it.
    const heldBy = sandbox !== undefined && sandboxKindOf(sandbox) !== null ? sandbox : undefined;
    const kept = heldBy ? latestOf(await this.supervisor.journal.readStream(stream)) : await this.latest(stream);
    // Checked again: another request under the key may have begun while the record was read.
    if (this.running.has(stream)) throw refusal('IDEMPOTENCY_KEY_IN_USE', { key });
    const now = this.now();
    if (kept && kept.expiresAt > now) {
      if (kept.fingerprint !== fingerprint) throw refusal('IDEMPOTENCY_KEY_REUSED', { key });
      if (kept.answer) return { replay: kept.answer };
      throw refusal('IDEMPOTENCY_ANSWER_LOST', { key, committedAt: kept.committedAt ?? '', wrote: kept.wrote ?? [] }, { committedAt: kept.committedAt, wrote: kept.wrote });
    }
    this.running.add(stream);
    return { claim: new Claim(stream, key, fingerprint, now + KEEP_MS, kept?.version ?? 0, heldBy) };
  }

  /** Runs the request's work under its claim: its command's first write carries the record. */
  run<T>(claim: Claim, work: () => T): T {
    return requests.run(claim, work);
  }

  /**
   * Settles a claim with the request's answer: a 2xx or 4xx is kept (after
   * the command's record when it wrote), a 5xx is not (a retry runs again,
   * unless the command had already committed: then its claim stands alone).
   */
  async settle(claim: Claim, answer: KeptAnswer): Promise<void> {
    if (claim.settled) return;
    claim.settled = true;
    try {
      const committed = claim.answer;
      // The answer that left is the one its command's transaction kept (the door sent those bytes): nothing more to write.
      if (committed && sameAnswer(committed, answer)) {
        if (!claim.heldBy) this.cache.set(claim.stream, { fingerprint: claim.fingerprint, expiresAt: claim.expiresAt, version: claim.version + 1, answer: committed });
        return;
      }
      // A 5xx is not kept; after a command whose answer its transaction kept, that answer stands.
      if (answer.status >= 500) return;
      const version = claim.version + (claim.joined ? 1 : 0);
      const write: StreamWrite = { ...this.supervisor.factWrite(claim.stream, version, answeredFact(claim, answer)), grain: IDEMPOTENCY_GRAIN };
      // The record is the idempotency grain's own: nothing listens for it, so it is not announced.
      const [answered] = await this.supervisor.journal.append(IDEMPOTENCY_GRAIN, [write]);
      if (!claim.heldBy) this.cache.set(claim.stream, { fingerprint: claim.fingerprint, expiresAt: claim.expiresAt, version: answered.version, answer });
    } catch (error) {
      // Another process answered the key first (it ran its own copy of a request that wrote nothing): its answer stands.
      if (!(error instanceof VersionConflict)) throw error;
      this.cache.delete(claim.stream);
    } finally {
      this.running.delete(claim.stream);
    }
  }

  /** A request over without an answer to keep: its key is free again (a committed command's record stands, with its answer when it holds one). */
  abandon(claim: Claim): void {
    if (claim.settled) return;
    claim.settled = true;
    this.running.delete(claim.stream);
  }

  private async latest(stream: string): Promise<Kept | null> {
    const cached = this.cache.get(stream);
    // A kept answer never changes until it expires; after that, another process may have written the key's next record.
    if (cached && cached.expiresAt > this.now()) return cached;
    const kept = latestOf(await this.supervisor.journal.readStream(stream));
    if (kept?.answer) this.cache.set(stream, kept);
    return kept;
  }
}

/** The same status, headers and bytes. */
const sameAnswer = (a: KeptAnswer, b: KeptAnswer): boolean =>
  a.status === b.status && a.payload === b.payload && Object.keys(a.headers).length === Object.keys(b.headers).length && Object.entries(a.headers).every(([name, value]) => b.headers[name] === value);
