/**
 * The journal: an append-only, per-grain ordered log of facts. It is the only
 * truth: stage, status, ladders, rosters and the event tail are all derived
 * from it. Adapters: SQLite (the default, durable), memory (unit tests only).
 *
 * Positions: `seq` orders a grain's tail (strictly increasing, gap-free as
 * written; a purge of a sandbox grain takes the records it held out of the
 * grains no route serves, and a seq is never taken twice: `retention.ts`);
 * `version` orders one stream (one Matter, Ladder, Enrollment, ...), and is what
 * optimistic concurrency checks against.
 */

/** A fact about to be journaled. */
export interface NewEvent {
  kind: string;
  /** ISO 8601 instant, stamped by the clock port before the machine ran. */
  at: string;
  /** What the fact is about: a Matter, Asset, member, ... id. */
  subject: string;
  summary: string;
  /** The Stage Verb (or outcome) a stage-like fact commits. */
  verb?: string;
  by?: string;
  /** The named human or Signer who spoke; puts the fact on the `time` feed. */
  actor?: string;
  /** The Monitoring owner a reminder is addressed to. */
  deliverTo?: string;
  data: Record<string, unknown>;
  /** The machine event that produced this fact; replayed to rebuild the actor. */
  cause?: Record<string, unknown>;
  /**
   * The trace context (W3C `traceparent`) of the command that appended it,
   * on a fact that asks for work after the commit (an intent, a fact a
   * webhook is sent for), where traces are recorded: metadata, kept in the
   * body, so the effect made later for it (the outbox's, a webhook's) joins
   * the command's trace. Never read by a decider, never in an answer.
   */
  trace?: string;
  /**
   * The event as a page of its grain's tail shows it, after its seq (which
   * the journal gives as it appends): the bytes the tail door writes for it
   * from `,"at"` on (`http/tail-entries.ts`). Kept beside the event, so a
   * page is one range read whose bytes are sent as stored (`readTailEntries`);
   * never in its body, never read back as part of the event: the adapter
   * keeps it whole, `{"seq":<seq>` in front. Absent: the page builds the
   * entry from the event.
   */
  entry?: string;
}

export interface JournalEvent extends NewEvent {
  grain: string;
  seq: number;
  stream: string;
  version: number;
  /**
   * Set by the range reads alone (`readTail`, and the outbox's
   * `pendingIntents` and `readIntents`), on an event whose body does not
   * read: the event is then its row's columns (`subject` its stream, no
   * summary, an empty `data`), so a tail answers it in its place and goes on
   * past it, and the outbox passes over it to the intents after it. Every
   * reader of a range that reads a body checks it first.
   */
  unreadable?: UnreadableEvent;
}

export interface StreamWrite {
  stream: string;
  /**
   * The grain this stream's events join when it is not the append's: a
   * record kept in the same transaction as a command but in a grain no route
   * reads (an idempotency record, beside the command it answers).
   */
  grain?: string;
  /** The stream's version the writer decided against (0 for a new stream). */
  expectedVersion: number;
  events: NewEvent[];
  /**
   * Events made once the append's other writes have their positions, and
   * appended after `events` in the same transaction: a record that shows
   * what the others became (an Idempotency-Key's record holding the
   * command's answer, whose bytes may show their seqs: `engine/idempotency.ts`).
   * Called once, synchronously, after the stream's expected version is
   * checked and before anything is committed, with the events of the
   * append's other writes as they will read back; what it throws refuses the
   * append. At most one write of an append completes, the last one.
   */
  completes?: (written: JournalEvent[]) => NewEvent[];
  /**
   * The entity's state once these events are appended (at version
   * `expectedVersion + events.length`), kept as the stream's snapshot in
   * the same transaction. Only entity streams (those a machine folds) carry one.
   */
  snapshot?: SnapshotState;
  /**
   * The machine's transitions these events took (`edgeKey`s, one per
   * transition each time it was taken): an entity write's share of its
   * grain's transition counts, added in the same transaction (the population,
   * `src/engine/population.ts`).
   */
  transitions?: string[];
}

/** An entity's persisted state, as a machine wrote it. */
export interface SnapshotState {
  /** The machine that wrote it, with a hash of its definition (`matter@1#3fa9…`): no other machine reads it. */
  machine: string;
  /** XState's persisted snapshot, as JSON text. */
  state: string;
  /**
   * Where the entity stands, kept beside the state as indexed columns so a
   * grain's population is counted by one aggregate over an index, never by
   * folding (`src/engine/population.ts`). Absent on a row an earlier build
   * wrote: such a row is folded again and rewritten, like any unusable one.
   */
  standing?: Standing;
}

/** Where an entity stands on its machine: what the population counts. */
export interface Standing {
  /** Its state, as a dotted path of the machine (`open.waiting_on_signer`). */
  path: string;
  /** The population facets it shows (bit i: its machine's facet i), e.g. a ladder that is vacant. */
  facets: number;
  /** The fact that entered the state: what its age there is counted from. */
  entered: Entered;
}

/**
 * A fact that entered a state: one journaled already (its seq in the grain
 * and its instant), or, in a write, one of that write's own events (its
 * index in `events`), whose seq the journal gives it as it appends.
 */
export type Entered = { seq: number; at: string } | { event: number };

/**
 * An entity stream's snapshot: its state as of `version`, what a read of an
 * entity not in memory answers and what a rehydrated actor resumes from. A
 * cache of the journal, never its truth: a snapshot that is missing, of
 * another machine or unreadable is replaced by folding the stream again.
 */
export interface StreamSnapshot extends SnapshotState {
  version: number;
}

/** A machine, as the population reads its rows: the tag its rows are written under, its id, and how many facets it counts. */
export interface PopulationMachine {
  /** The snapshot tag of today's machine (`matter@1#3fa9…`): rows and counts of any other tag are another build's, and stale. */
  tag: string;
  /** The machine's id (`matter`): the tags of its every build begin `<id>@`. */
  id: string;
  facets: number;
}

/** What the journal keeps about one machine's streams in one grain: read in one aggregate over an index, and checked against its ledger. */
export interface PopulationRows {
  /** The rows of today's tag, by state path (null: a row with no standing). */
  states: Array<{
    path: string | null;
    count: number;
    /** The sum of the rows' versions: with the ledger's `events`, it says no row is behind or ahead of its stream. */
    versions: number;
    /** How many of them show each facet of the machine. */
    facets: number[];
    /** The stream that entered this state first (least seq), with that fact's seq and instant. */
    oldest: { stream: string; seq: number; at: string; version: number; state: string } | null;
  }>;
  /**
   * The totals every entity write adds to in its transaction: streams
   * opened, events appended to them, transitions taken. Null: none kept.
   */
  ledger: PopulationLedger | null;
  transitions: Array<{ edge: string; count: number }>;
}

export interface PopulationLedger {
  streams: number;
  events: number;
  transitions: number;
}

/** One stream in a state, as a page of them lists it (oldest first). */
export interface StreamInState {
  stream: string;
  /** The seq and instant of the fact that entered the state. */
  seq: number;
  at: string;
  version: number;
  state: string;
}

export type Feed = 'timeline' | 'reminders' | 'time';
export const FEEDS: readonly Feed[] = ['timeline', 'reminders', 'time'];

export interface TailQuery {
  after: number;
  limit: number;
  feed: Feed;
}

/** The envelope around a page of kept entries, for the grain's last seq and the page's last: what goes before them, and after. */
export type TailFrame = (latest: number, last: number) => [head: string, tail: string];

/**
 * Whether a range of the timeline read from the kept entries is the whole
 * page: seqs are gap-free in a grain a route serves, so it is when the
 * entries run from `after + 1` without a gap, and either fill the page or
 * reach the grain's last seq. Anything else (an event without its entry)
 * reads as no page.
 */
export function wholePage(after: number, limit: number, latest: number, count: number, first: number, last: number): boolean {
  if (count === 0) return false;
  return first === after + 1 && last - first + 1 === count && (count === limit || last === latest);
}

export interface StreamHead {
  stream: string;
  seq: number;
  data: Record<string, unknown>;
  /** The opening event's body does not read (`data` is then empty): a list answers this stream as unreadable and the rest of its page as usual. */
  unreadable?: UnreadableEvent;
}

/** An entity stream as a read of its state sees it: the event that opened it, and its snapshot when that reflects the stream's head. */
export interface EntityHead {
  opened: JournalEvent;
  snapshot: StreamSnapshot | null;
  /** As `StreamHead.unreadable`: `opened` holds the row's columns only (its `data` empty). */
  unreadable?: UnreadableEvent;
}

/**
 * An answer kept as a row (an inline read model, issue 37): the bytes a read
 * door answers for one record, kept beside the journal, so a read of a record
 * not in memory is one indexed lookup that returns them as stored. A cache of
 * the journal, never its truth: the adapters answer a row only while every
 * stream it was built from still stands at the version it names, it was
 * written by today's build of the answer (`tag`), and its bytes are the ones
 * written (a CRC-32 the adapter keeps beside them); anything else reads as no
 * row, and the door builds the answer from the journal and keeps it again.
 */
export interface AnswerRow {
  /** The record whose answer it is. */
  stream: string;
  /** The grain the record lives in: who may be sent the row is checked against it. */
  grain: string;
  /** The build that wrote it (the door's name and `buildKey`): a row of another build, whose views may word the same facts otherwise, is stale. */
  tag: string;
  /** Every stream the bytes were built from, with the version each stood at: the record's own first. */
  deps: Array<[stream: string, version: number]>;
  /** The answer's ETag, as the door tags the same bytes. */
  etag: string;
  body: string;
  /** The record as a list shows it (one item of a page): it depends on the record's own stream alone, and is current while that stands at its version in `deps`. */
  item: string;
}

/** A record of a page of a list, in the list's order: its stream and seq, and its item when one is kept current and intact (`AnswerRow.item`); null: build it. */
export interface ListedItem {
  stream: string;
  seq: number;
  item: string | null;
}

/** A row as a read is sent it: fresh and intact (`AnswerRow`). */
export type KeptRow = Pick<AnswerRow, 'grain' | 'etag' | 'body'>;

/** One step of a purge: how many rows it deleted, the free pages it gave back to the file system (the embedded journal), and whether nothing of the grain is left (its tombstone aside). */
export interface PurgeStep {
  removed: number;
  pages?: number;
  done: boolean;
}

/**
 * The journal's side of retention (`retention.ts`): purging an expired
 * sandbox grain is part of the store, each adapter deleting its own rows;
 * the same tests on every one (`test/journal/retention.test.ts`).
 */
export interface GrainRetention {
  /**
   * The grains to purge now, at most `limit`: first those whose purge began
   * and has not finished, then those whose opening says they expired before
   * `before` (an ISO instant), the earliest expiry first.
   */
  expiredGrains(before: string, limit: number): Promise<string[]>;
  /**
   * One step of the grain's purge, in one transaction that deletes at most
   * `budget` rows (each part of the purge in turn taking what room is left;
   * the last steps give free pages back on the embedded journal). The
   * first step writes the tombstone:
   * from then on no append to the grain is taken (`GrainPurged`). Rejects
   * with `NotPurgeable` for a grain that never opened as a TTL-bound grain
   * (the top level), writing nothing.
   */
  purgeGrain(grain: string, budget: number): Promise<PurgeStep>;
  /** Whether the grain's purge has begun (its tombstone is written). */
  isPurged(grain: string): Promise<boolean>;
}

export interface JournalStore extends GrainRetention {
  /**
   * Appends the writes of one command atomically, all or none, each into
   * `grain` unless it names its own. Resolves only
   * once the transaction is durable; rejects with {@link VersionConflict} when a
   * stream moved past the expected version.
   */
  append(grain: string, writes: StreamWrite[]): Promise<JournalEvent[]>;
  readStream(stream: string): Promise<JournalEvent[]>;
  /** The stream's snapshot, or null when it has none. */
  readSnapshot(stream: string): Promise<StreamSnapshot | null>;
  /** The stream's opening event and current snapshot, in one lookup; null when no such stream. */
  readHead(stream: string): Promise<EntityHead | null>;
  /**
   * Writes a stream's snapshot outside an append: one rebuilt by folding the
   * stream, in place of one that was missing or unreadable. It replaces the
   * row there unless that row is of a later version the stream has reached:
   * a rewrite that races a commit never takes the row (and the population
   * its standing counts) back. A row ahead of its stream is damage, and is
   * replaced.
   */
  putSnapshot(stream: string, snapshot: StreamSnapshot): Promise<void>;
  readTail(grain: string, query: TailQuery): Promise<JournalEvent[]>;
  /**
   * The timeline's page after seq `after`, whole: its events' kept entries
   * (`NewEvent.entry`, each with its seq in front), joined by commas between
   * the two halves of the envelope `frame` writes for the grain's last seq
   * and the page's (`[head, tail]`), in one range read; null unless every
   * event of the page has its entry kept (an earlier build's, a row written
   * by hand) or the page is empty: the page is then read with `readTail`.
   * Absent on an adapter that keeps none.
   */
  readTailEntries?(grain: string, after: number, limit: number, frame: TailFrame): Promise<Buffer | string | null>;
  /** The answer kept for `stream` under `tag`, in one statement; null when there is none fresh and intact (`AnswerRow`). */
  readAnswer(stream: string, tag: string): Promise<KeptRow | null>;
  /**
   * Keeps an answer, replacing the stream's row, unless one of the streams
   * it was built from has moved on by the time it is written (a put that
   * raced a commit never replaces a row with an older answer).
   */
  putAnswer(row: AnswerRow): Promise<void>;
  /** The streams of `grain` that opened with `kind`, after seq `after`, in seq order (`streamHeads`), each with its kept list item under `tag`: a page of a list in one statement. */
  listItems(grain: string, kind: string, tag: string, after: number, limit: number): Promise<ListedItem[]>;
  latestSeq(grain: string): Promise<number>;
  /** How many events a stream holds: the expected version of its next append. */
  streamVersion(stream: string): Promise<number>;
  /** The first event of each stream of a grain that opened with `kind`, in seq order. */
  streamHeads(grain: string, kind: string, after: number, limit: number): Promise<StreamHead[]>;
  /** The same streams as `streamHeads`, each with its opening event whole and its current snapshot: a page of entities' states in one query. */
  entityHeads(grain: string, kind: string, after: number, limit: number): Promise<EntityHead[]>;
  countStreams(grain: string, kind: string): Promise<number>;
  /**
   * The intents (`INTENT_KINDS`) of every grain, in (grain, seq) order, a
   * page at a time after `after` (null: from the start): what the outbox
   * reader resumes from.
   */
  readIntents(after: IntentCursor | null, limit: number): Promise<JournalEvent[]>;
  /**
   * The intents not yet settled (no {@link DELIVERY_KIND} record names
   * them), in (grain, seq) order, a page at a time after `after`: what the
   * outbox resumes at a start and sweeps for work a dead process held. The
   * adapters keep the unsettled ones apart, in the transaction of the intent
   * and of its record, so this reads them alone, never every intent. On a
   * journal several processes share, an intent a process holds the live
   * lease of (`intentLeaseOf`), this one included, is left out: that work
   * is under way.
   */
  pendingIntents(after: IntentCursor | null, limit: number): Promise<JournalEvent[]>;
  /** The population of one machine's streams in a grain: its rows by state, its ledger and its transition counts (`PopulationRows`). */
  population(grain: string, machine: PopulationMachine): Promise<PopulationRows>;
  /** The streams of a grain in one state of a machine (rows of its tag), oldest first (by the seq that entered it), after seq `after`. */
  streamsInState(grain: string, tag: string, path: string, after: number, limit: number): Promise<StreamInState[]>;
  /**
   * Replaces the grain's ledger and transition counts of the machine (every
   * build of it) with `counts`, and removes its rows of other builds, when
   * the grain's last seq is still `atSeq`: counts folded from the journal up
   * to there (a rebuild). False, writing nothing, when the grain has moved on.
   */
  resetPopulation(grain: string, machine: PopulationMachine, atSeq: number, counts: PopulationCounts): Promise<boolean>;
  /** Present when other processes write this journal too (PostgreSQL); absent, this process is its only writer. */
  readonly shared?: SharedJournal;
  close(): Promise<void>;
}

/** A machine's ledger and transition counts in a grain, as a rebuild folded them. */
export interface PopulationCounts {
  ledger: PopulationLedger;
  transitions: Array<{ edge: string; count: number }>;
}

/** What a journal several processes share adds: their commits announced, and leases. */
export interface SharedJournal {
  /**
   * Hears each commit another process makes, once it is durable: its grain
   * and the grain's last seq it wrote. Nothing else is carried: a listener
   * reads the journal. Grain `null`: notices may have been missed (the
   * connection was lost and is back), so read the journal again.
   */
  onPeerCommit(listener: (grain: string | null, seq: number) => void): void;
  /**
   * Takes each named lease no other process holds, for this process;
   * answers the names it holds now. A lease is held while this process
   * renews it, and released when the work is done (`releaseLeases`); a
   * process that dies or stalls stops renewing, its leases expire, and
   * another may take them (`postgres-leases.ts`). A lease this process
   * finds taken from it is said to `onLeasesLost`'s listeners.
   */
  tryLeases(names: string[]): Promise<Set<string>>;
  releaseLeases(names: string[]): Promise<void>;
  onLeasesLost(listener: (names: string[]) => void): void;
  /** Runs `work` while no other process runs work under the same name. */
  exclusive<T>(name: string, work: () => Promise<T>): Promise<T>;
  /**
   * The database's clock, ms since the epoch, as this process estimates it
   * (`postgres-clock.ts`): what every time window comparing instants that
   * different processes wrote reads, so the processes agree on its edges.
   */
  now(): number;
}

/**
 * The kinds of fact that ask for an effect outside the process (the
 * transactional outbox): each is journaled in the transaction of the change
 * that asks for it, and delivered after it. The SQLite adapter indexes
 * exactly these kinds (`events_intents`): a change here changes that too.
 */
export const INTENT_KINDS = ['gig.posted', 'capability.escalated'] as const;
export type IntentKind = (typeof INTENT_KINDS)[number];

/**
 * The kind of the outbox's record that an intent is settled (its effect
 * delivered): its `data.intent` names the intent's grain and seq. The SQL
 * adapters read exactly these two fields, in their triggers, to strike the
 * intent from the unsettled ones (`pendingIntents`): a change here changes
 * those too.
 */
export const DELIVERY_KIND = 'outbox.delivered';

/**
 * The lease of an intent's effect on a journal several processes share
 * (`outbox:<grain>:<seq>`): the outbox takes it before each attempt, and
 * `pendingIntents` leaves out the intents another live process holds by it.
 */
export const INTENT_LEASE_PREFIX = 'outbox:';
export const intentLeaseOf = (intent: { grain: string; seq: number }) => `${INTENT_LEASE_PREFIX}${intent.grain}:${intent.seq}`;

/** Where a page of intents ended: its last intent's grain and seq. */
export interface IntentCursor {
  grain: string;
  seq: number;
}

/**
 * An event row whose body is not the JSON object the adapters wrote (a
 * database edited by hand, a disk that lost bytes). Named by its stream and
 * seq, never by its bytes, so the message can be shown to the stream's
 * caller and logged without leaking what the body held.
 */
export class UnreadableEvent extends Error {
  constructor(
    readonly stream: string,
    readonly seq: number,
  ) {
    super(`the event at seq ${seq} of stream ${stream} is not readable JSON`);
  }
}

export class VersionConflict extends Error {
  constructor(
    readonly stream: string,
    readonly expected: number,
    readonly actual: number,
  ) {
    super(`stream ${stream} is at version ${actual}, the write expected ${expected}`);
  }
}

/**
 * Which tail events a feed shows. The SQLite adapter states the same two
 * predicates in SQL, where its partial indexes can serve them
 * (`events_reminders`, `events_with_actor`): a change here changes those too.
 */
export function inFeed(feed: Feed, event: Pick<JournalEvent, 'kind' | 'actor'>): boolean {
  if (feed === 'reminders') return event.kind.startsWith('reminder.');
  if (feed === 'time') return event.actor !== undefined && event.actor !== null;
  return true;
}

/** How many heads `eachStreamHead` reads from the store at a time. */
const HEADS_PAGE = 500;

/**
 * Every stream of `grain` that opened with `kind`, after seq `after`, in seq
 * order: `streamHeads` read a page at a time, for a caller that walks them
 * all or stops part way. A caller that knows how many it will take (a page
 * of a list with no filter) says so in `pageSize`: each head read is an
 * opening event parsed whole, and reading 500 to answer a page of 100 was
 * most of that door's time (issue 18's profile).
 */
export async function* eachStreamHead(journal: JournalStore, grain: string, kind: string, after = 0, pageSize = HEADS_PAGE): AsyncGenerator<StreamHead> {
  // Its walkers need every head whole (a grain's endpoints, a firm's Enrollments): one that does not read fails the walk, as it always did.
  for await (const head of eachPage((from, limit) => journal.streamHeads(grain, kind, from, limit), (h) => h.seq, after, pageSize)) {
    if (head.unreadable) throw head.unreadable;
    yield head;
  }
}

/** The same walk over `entityHeads`: each entity's opening and current snapshot, an unreadable one marked (`unreadable`) for its caller to answer. */
export function eachEntityHead(journal: JournalStore, grain: string, kind: string, after = 0, pageSize = HEADS_PAGE): AsyncGenerator<EntityHead> {
  return eachPage((from, limit) => journal.entityHeads(grain, kind, from, limit), (head) => head.opened.seq, after, pageSize);
}

async function* eachPage<T>(read: (after: number, limit: number) => Promise<T[]>, seqOf: (item: T) => number, after: number, pageSize: number): AsyncGenerator<T> {
  for (;;) {
    const page = await read(after, pageSize);
    yield* page;
    if (page.length < pageSize) return;
    after = seqOf(page[page.length - 1]);
  }
}
