/**
 * The supervisor: process-per-entity. Each Matter, Deadline Ladder and
 * Enrollment is an XState actor with its own mailbox, in which the command
 * handler (`handle-command.ts`) runs each command. A commit (`commit`) sends
 * the decided events to the actor, which emits its facts; the supervisor
 * appends them to the journal with the stream's expected version, and only
 * once the append is durable do readers see the new state and the bus hear
 * of it. An append that fails drops the actor, which the journal rebuilds on
 * the next touch.
 *
 * Actors are rebuilt lazily, on first touch, from their stream's snapshot
 * row and the events after it, or by replaying every journaled cause when the
 * row cannot be used (checked: see `entity.ts`; the row is then rewritten).
 * Idle actors are passivated (least recently used first) so memory stays
 * bounded however many entities exist and however long their streams grow
 * (`resident-pool.ts`). A read that needs only an entity's
 * state (`read`, `stateOf`: a view, a page of a list) answers from the
 * snapshot row without making the entity resident.
 *
 * On a journal other processes write too, a resident actor is checked
 * against its stream's version before each use (one indexed read): a read
 * on this process after a write another process acknowledged sees that
 * write, and a command decides on the journal as it stands.
 */
import { createActor, type AnyStateMachine, type EventFromLogic, type InputFrom } from 'xstate';
import type { Fact } from '../../machines/fact.ts';
import type { Clock } from '../domain/clock.ts';
import { refusal } from '../domain/refusals.ts';
import { webhookTypesOf } from '../domain/webhook-events.ts';
import { INTENT_KINDS, VersionConflict, type EntityHead, type JournalEvent, type JournalStore, type NewEvent, type StreamWrite } from '../journal/store.ts';
import { RecentMap } from '../lib/recent-map.ts';
import { tracing } from '../lib/telemetry.ts';
import { actorLoads, residentActors, snapshotReads } from './engine-metrics.ts';
import type { CommitBus } from './bus.ts';
import { Entity, factToEvent, machineTag, placed, restoredState, snapshotMachine, StoredState, UnreadableEntity, type EntityDefinition, type EntityState } from './entity.ts';
import { standingOf } from './standing.ts';
import { reaches } from './grains.ts';
import { recordJoining } from './idempotency.ts';
import { Mailboxes } from '../lib/mailboxes.ts';
import { ResidentPool } from './resident-pool.ts';
import { writeGuard } from './write-guard.ts';
import { refusingUnreadable, unreadableRefusal } from './unreadable.ts';

/**
 * The writes, each event that asks for work after the commit (an outbox
 * intent, a fact a webhook is sent for) stamped with the active span's
 * context (a W3C `traceparent`) where a trace is being recorded: metadata the
 * journal keeps in the event's body, so the effect a later turn or another
 * process makes for it is traced as the command's child. Never read by a
 * decider, never answered (views pick their fields); other events carry
 * nothing, so a trace adds no bytes to them.
 */
function carryTrace(writes: StreamWrite[]): StreamWrite[] {
  const trace = tracing.carried();
  if (!trace) return writes;
  for (const write of writes) for (const event of write.events) if (INTENTS.has(event.kind) || webhookTypesOf(event).length > 0) event.trace = trace;
  return writes;
}

const INTENTS = new Set<string>(INTENT_KINDS);

/** The snapshot reads' labels, made once: a page reads a hundred states, and telemetry off allocates nothing for them. */
const SNAPSHOT_HIT = { result: 'hit' } as const;
const SNAPSHOT_MISS = { result: 'miss' } as const;

/** What an append that opens no entity stream opens (never written to). */
const NONE_OPENED: Map<string, Entity> = new Map();

/** How many times an append is tried while the guard's stream keeps moving (a key rolled meanwhile) before its conflict is the caller's. */
const GUARD_RETRIES = 5;

/** How many initial states `initialState` keeps: a recently used one is kept, however many unique inputs pass between its uses. */
const INITIAL_STATES_KEPT = 64;

/** How many idle actors stay resident unless told (`LEGALWORK_RESIDENT_ACTORS`). */
export const DEFAULT_RESIDENT_ACTORS = 20_000;

/** `LEGALWORK_RESIDENT_ACTORS`: a whole number from 100 to 1,000,000; unset, the default. A malformed value stops the start. */
export function residentActorsOf(value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_RESIDENT_ACTORS;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 100 || n > 1_000_000) throw new Error(`LEGALWORK_RESIDENT_ACTORS must be a whole number from 100 to 1000000, got ${JSON.stringify(value)}`);
  return n;
}

export interface SupervisorOptions {
  journal: JournalStore;
  bus: CommitBus;
  clock: Clock;
  /** How many idle actors stay resident before the least recently used is passivated (and 25 times as many journal events among them). */
  residentActors?: number;
  /** The kinds of entity whose streams are actors (Matters, Deadline Ladders, Enrollments). */
  entities: EntityDefinition[];
}

/** An initial state as a snapshot row holds it, and where it stands. */
interface InitialState {
  state: string;
  standing: { path: string; facets: number };
}

export interface CommitOptions {
  derive?: (fact: Fact) => NewEvent[];
  alsoWrite?: (versionAfter: number) => StreamWrite[];
  /**
   * What the command answers once this commit lands, from the entity as it
   * will then stand (`Entity.ahead`) and the events the append writes, their
   * positions given; undefined when it cannot say before. Asked only for a
   * request under an Idempotency-Key, inside the append, so its answer rides
   * in the same transaction (`recordJoining`).
   */
  ahead?: (entity: Entity, written: JournalEvent[]) => unknown;
}

export class Supervisor {
  readonly journal: JournalStore;
  readonly bus: CommitBus;
  readonly clock: Clock;
  /** One per entity (and per `exclusive` key): the command handler runs each command in its entity's. */
  readonly mailboxes = new Mailboxes();
  private readonly resident: ResidentPool;
  private readonly hydrating = new Map<string, Promise<Entity | null>>();
  /**
   * States `read` answered from snapshot rows, kept beside the resident
   * entities (least recently read out first, as many) so a state read again
   * is answered from memory with no lookup; forgotten when their stream is
   * appended to. Only where this process is the journal's one writer.
   */
  private readonly stored: RecentMap<string, StoredState>;
  /** Initial states by machine and input, the most recently used last (`initialState`). */
  private readonly initialStates = new RecentMap<string, InitialState>(INITIAL_STATES_KEPT);
  /** Appends this process has made: a state read across one of them is not kept (it may be older than the append). */
  private appends = 0;
  /** Entity definitions by the kind of the event that opens their streams. */
  private readonly definitions: Map<string, EntityDefinition>;
  /** What a kind of entity keeps after each of its commits (`afterCommit`). */
  private readonly afterCommits = new Map<EntityDefinition, (entity: Entity) => Promise<void>>();
  private readonly afterCommitsPending = new Set<Promise<void>>();
  /**
   * Each event's tail entry as the tail door writes it, after its seq
   * (`NewEvent.entry`), made as it is appended: set by the HTTP layer
   * (`http/tail-entries.ts`); unset, no entry is kept and pages are built.
   */
  tailEntry?: (event: NewEvent) => string | undefined;

  constructor(options: SupervisorOptions) {
    this.journal = options.journal;
    this.bus = options.bus;
    this.clock = options.clock;
    const capacity = options.residentActors ?? DEFAULT_RESIDENT_ACTORS;
    this.resident = new ResidentPool(capacity, (id) => this.mailboxes.isBusy(id));
    this.stored = new RecentMap(capacity);
    this.definitions = new Map(options.entities.map((d) => [d.openedKind, d]));
    options.journal.shared?.onPeerCommit((grain, seq) => this.bus.emit('committedElsewhere', grain, seq));
    residentActors.track(() => this.resident.size);
  }

  /** The live entity, rehydrated from the journal on first touch; null when no such stream. */
  async load<M extends AnyStateMachine>(definition: EntityDefinition<M>, id: string): Promise<Entity<M> | null> {
    const hit = await this.residentAsJournaled(id);
    if (hit) {
      this.resident.touch(hit);
      return hit.definition === definition ? (hit as unknown as Entity<M>) : null;
    }
    let pending = this.hydrating.get(id);
    if (!pending) {
      pending = this.hydrate(definition, id);
      this.hydrating.set(id, pending);
      void pending.finally(() => this.hydrating.delete(id)).catch(() => undefined);
    }
    const entity = await pending;
    return entity && entity.definition === definition ? (entity as unknown as Entity<M>) : null;
  }

  /** The resident actor of `id`, unless another process has moved its stream since (it is forgotten: the caller rebuilds it). */
  private async residentAsJournaled(id: string): Promise<Entity | undefined> {
    const hit = this.resident.get(id);
    if (!hit || !this.journal.shared || (await this.journal.streamVersion(id)) <= hit.version) return hit;
    this.resident.forget(id, hit);
    // A command of this process may hold it still; that command's append will meet the conflict and decide again.
    if (!this.mailboxes.isBusy(id)) hit.stop();
    return undefined;
  }

  /** The live entity when `grain` reaches it (`reaches`); null when there is no such stream or it lies beyond the grain. */
  async loadIn<M extends AnyStateMachine>(definition: EntityDefinition<M>, id: string, grain: string): Promise<Entity<M> | null> {
    const entity = await this.load(definition, id);
    return entity && reaches(grain, entity.grain) ? entity : null;
  }

  /**
   * The entity's committed state for a reader: the resident entity, else
   * its snapshot row (one lookup, no actor, nothing made resident), else
   * (no usable row) the entity loaded by folding its stream. Null when
   * there is no such stream in `grain`'s reach.
   */
  async read<M extends AnyStateMachine>(definition: EntityDefinition<M>, id: string, grain: string): Promise<EntityState<M> | null> {
    const local = !this.journal.shared;
    if (local && this.resident.has(id)) return this.loadIn(definition, id, grain);
    let state: EntityState | null | undefined = local ? this.stored.use(id) : undefined;
    if (!state) {
      const appends = this.appends;
      const head = await this.journal.readHead(id);
      if (!head || head.opened.kind !== definition.openedKind) return null;
      state = await this.stateOf(definition, head);
      if (local && state instanceof StoredState && appends === this.appends) this.stored.set(state.id, state);
    }
    return state && state.opened.kind === definition.openedKind && reaches(grain, state.grain) ? (state as EntityState<M>) : null;
  }

  /**
   * The state of the stream a list found (`entityHeads`): from its snapshot
   * row when this machine wrote it and it reflects the stream's head (the
   * adapters join it only then), else the entity loaded from the journal.
   */
  async stateOf<M extends AnyStateMachine>(definition: EntityDefinition<M>, head: EntityHead): Promise<EntityState<M> | null> {
    const { opened, snapshot } = head;
    if (head.unreadable) throw unreadableRefusal(opened.stream, head.unreadable);
    // Resident on a journal this process alone writes: the entity is the state, with nothing to rebuild.
    const resident = this.journal.shared ? undefined : this.resident.get(opened.stream);
    if (resident) return resident.definition === definition ? (resident as unknown as Entity<M>) : null;
    const state = snapshot && restoredState(definition, snapshot, snapshot.version);
    snapshotReads.inc(state ? SNAPSHOT_HIT : SNAPSHOT_MISS);
    if (state) return new StoredState(opened, snapshot.version, state);
    return this.load(definition, opened.stream);
  }

  private async hydrate(definition: EntityDefinition, id: string): Promise<Entity | null> {
    const [journal, stored] = await refusingUnreadable(id, Promise.all([this.journal.readStream(id), this.journal.readSnapshot(id)]));
    if (journal.length === 0 || journal[0].kind !== definition.openedKind) return null;
    let entity: Entity;
    try {
      entity = new Entity(definition, journal, stored);
    } catch (error) {
      // One unreadable stream fails its own requests, and nothing else.
      if (error instanceof UnreadableEntity) throw refusal('ENTITY_UNREADABLE', { detail: error.message, id }, { stream: error.stream, seq: error.seq, event: error.event, ...(error.state === undefined ? {} : { state: typeof error.state === 'string' ? error.state : JSON.stringify(error.state) }) });
      throw error;
    }
    actorLoads.inc({ kind: definition.machine.id, from: entity.resumedAt > 0 ? 'snapshot' : 'journal' });
    // The row was missing, of another machine, unreadable or behind the stream: it is rewritten. A cache, so a failed rewrite only costs the next fold.
    if (entity.resumedAt < entity.version) this.journal.putSnapshot(id, { version: entity.version, ...entity.persisted() }).catch(() => undefined);
    this.resident.keep(entity);
    return entity;
  }

  /** Stops an entity and forgets it: the next touch rebuilds it from the journal. */
  private drop(entity: Entity): void {
    this.resident.forget(entity.id, entity);
    entity.stop();
  }

  /**
   * Serializes work under one key, as a mailbox does for an actor: a key's
   * spend, a conflicts ledger, a grain's declarations (one live Enrollment
   * per member), an endpoint's records. On a journal other processes share,
   * across them too: the region holds the journal's lock of that name.
   */
  exclusive<T>(key: string, work: () => Promise<T>): Promise<T> {
    const shared = this.journal.shared;
    return this.mailboxes.run(key, shared ? () => shared.exclusive(key, work) : work);
  }

  /**
   * Commits machine events on an entity: each must be accepted by the machine
   * (the decider has said so); the actor takes them, and the facts it emits
   * are journaled with the expected version before anyone sees the new
   * state. `derive` may add journal-only events after a fact (they carry no
   * cause, so a fold never replays them). `alsoWrite` adds writes to other
   * plain streams in the same transaction, given the entity's version once
   * the commit lands (a record of the request that caused it).
   */
  async commit<M extends AnyStateMachine>(entity: Entity<M>, events: Array<EventFromLogic<M>>, options: CommitOptions = {}): Promise<JournalEvent[]> {
    const applied = entity.apply(events);
    if ('refusedAt' in applied) {
      // The decider said the machine takes these events; it does not. Past the first, the actor already moved.
      if (applied.refusedAt > 0) this.drop(entity);
      throw refusal('STATE_REFUSES', { subject: `${entity.id} is in a state`, event: events[applied.refusedAt].type });
    }
    const { facts } = applied;
    const newEvents: NewEvent[] = [];
    // Which of the new events is the fact of the event that last moved the state (its seq is the journal's to give).
    let entered: number | null = null;
    events.forEach((event, i) => {
      if (i === applied.entered) entered = newEvents.length;
      for (const fact of facts[i]) {
        // A stream keeps the subject it opened with (a ladder speaks of its Asset).
        newEvents.push(factToEvent(fact, entity.opened.subject, this.clock.stamp(), event));
        if (options.derive) newEvents.push(...options.derive(fact));
      }
    });
    // The state the actor reached is the stream's snapshot once these events land, with the transitions they took.
    const own: StreamWrite = { stream: entity.id, expectedVersion: entity.version, events: newEvents, snapshot: entity.persisted(entered === null ? undefined : { event: entered }), transitions: applied.transitions };
    let written: JournalEvent[];
    const ahead = options.ahead;
    try {
      written = await this.append(entity.grain, [own, ...(options.alsoWrite?.(entity.version + newEvents.length) ?? [])], ahead && ((w) => ahead(entity.ahead(w.filter((e) => e.stream === entity.id)), w)));
    } catch (error) {
      // The actor is ahead of the journal: let it crash, and the journal rebuild it.
      this.drop(entity);
      throw error;
    }
    const landed = written.filter((e) => e.stream === entity.id);
    entity.confirm(landed, entered);
    this.resident.grew(entity, landed.length);
    this.committed(entity);
    return written;
  }

  /**
   * Work a kind of entity asks for after each of its commits, on the entity
   * as committed (a Matter's answer kept as a row): queued in the entity's
   * mailbox behind the command that committed, so the command answers
   * without waiting for it, and the entity's next command waits until it is
   * done, while the entity is as committed. A cache's work: its failure is
   * nobody's refusal.
   */
  afterCommit<M extends AnyStateMachine>(definition: EntityDefinition<M>, work: (entity: Entity<M>) => Promise<void>): void {
    this.afterCommits.set(definition, work as unknown as (entity: Entity) => Promise<void>);
  }

  private committed(entity: Entity): void {
    const work = this.afterCommits.get(entity.definition);
    if (!work) return;
    const version = entity.version;
    const done = this.mailboxes.run(entity.id, async () => {
      // Only on the entity as this commit left it: one dropped or moved on since is another commit's to keep.
      if (this.resident.get(entity.id) === entity && entity.version === version) await work(entity).catch(() => undefined);
    });
    this.afterCommitsPending.add(done);
    void done.finally(() => this.afterCommitsPending.delete(done));
  }

  /** Resolves once the after-commit work queued so far is done: a stop waits for it before its journal closes. */
  async afterCommitsSettled(): Promise<void> {
    await Promise.all([...this.afterCommitsPending]);
  }

  /**
   * Opens a new entity stream: the opening fact carries the machine input as
   * its cause so a later fold can rebuild the actor. The writes `alsoWrite`
   * returns land in the same transaction (an Asset minted with its Matter, its
   * ladder, ...); it is called after the opening fact is stamped. Returns the
   * entity and everything the transaction wrote.
   */
  async open<M extends AnyStateMachine>(
    definition: EntityDefinition<M>,
    grain: string,
    id: string,
    input: InputFrom<M>,
    opened: Fact,
    alsoWrite: () => StreamWrite[] = () => [],
    /** What the command answers once the transaction lands, from the entities it opens (by id) and what it writes; as `CommitOptions.ahead`. */
    ahead?: (opened: (id: string) => Entity | undefined, written: JournalEvent[]) => unknown,
  ): Promise<{ entity: Entity<M>; written: JournalEvent[] }> {
    // Checked before anything is written: the entity is made resident by `append`, from its definition.
    if (this.definitions.get(definition.openedKind) !== definition) throw new Error(`${definition.openedKind} is not among the supervisor's entity definitions`);
    return this.mailboxes.run(id, async () => {
      // The opening fact is stamped first so instants follow journal order.
      const first = this.openingWrite(definition, id, id, input, opened);
      const written = await this.append(grain, [first, ...alsoWrite()], ahead && ((w, opening) => ahead((stream) => opening.get(stream), w)));
      const entity = this.resident.get(id) as unknown as Entity<M>;
      this.committed(entity);
      return { entity, written };
    });
  }

  /**
   * The write that opens an entity stream: its one opening fact, whose cause
   * carries the machine input that `fold` rebuilds the actor from, and the
   * machine's version (`machine: 'matter@1'`) a load checks. For a
   * stream opened inside another's transaction (a Matter's ladder) as for
   * `open` itself.
   */
  openingWrite<M extends AnyStateMachine>(definition: EntityDefinition<M>, stream: string, subject: string, input: InputFrom<M>, opened: Fact): StreamWrite {
    const event = factToEvent({ ...opened, kind: definition.openedKind }, subject, this.clock.stamp(), { type: 'xstate.init', input, machine: machineTag(definition) });
    const { state, standing } = this.initialState(definition, input);
    // The opening fact enters the initial state.
    return { stream, expectedVersion: 0, events: [event], snapshot: { machine: snapshotMachine(definition), state, standing: { ...standing, entered: { event: 0 } } } };
  }

  /**
   * The machine's initial state from this input, as a snapshot row holds it
   * (and where it stands): computed by an actor never started (nothing
   * runs), about 40 µs. A machine is pure, so an input opens the same state
   * every time; the last few are kept, which serves the inputs that repeat
   * (a Matter's is its consumer pattern) and lets the unique ones (a
   * ladder's names its Asset) pass through.
   */
  private initialState(definition: EntityDefinition, input: unknown): InitialState {
    const key = `${definition.openedKind} ${JSON.stringify(input)}`;
    let initial = this.initialStates.use(key);
    if (initial === undefined) {
      const actor = createActor(definition.machine, { input } as never);
      initial = { state: JSON.stringify(actor.getPersistedSnapshot()), standing: standingOf(definition.machine, actor.getSnapshot()) };
      this.initialStates.set(key, initial);
    }
    return initial;
  }

  /**
   * Appends and announces: the bus hears of a write only after it is
   * durable. The first write of a request under an Idempotency-Key carries
   * its record in the same transaction (`recordJoining`); the record is the
   * idempotency grain's own, so it is neither answered nor announced here.
   * Every write of a request that presented an API key carries the key's
   * check (`writeGuard`, first, so its conflict is the one reported): when the
   * key was rolled meanwhile the append is tried again, and when it was
   * revoked or has expired the append is refused, having written nothing.
   */
  async append(grain: string, writes: StreamWrite[], ahead?: (written: JournalEvent[], opening: Map<string, Entity>) => unknown): Promise<JournalEvent[]> {
    const guard = writeGuard();
    const entryOf = this.tailEntry;
    if (entryOf) for (const write of writes) for (const event of write.events) event.entry ??= entryOf(event);
    for (let attempt = 1; ; attempt++) {
      const check = guard?.check() ?? null;
      // The entities this append opens, made from its events once they have their positions: for the answer said ahead, then made resident.
      let opening: Map<string, Entity> | undefined;
      const record = recordJoining(this, writes, ahead && ((w) => ahead(w, (opening = this.openedBy(writes, w)))));
      let written: JournalEvent[];
      try {
        written = await this.journal.append(grain, carryTrace([...(check ? [check] : []), ...writes, ...(record ? [record.write] : [])]));
      } catch (error) {
        const failure = record ? record.failed(error) : error;
        if (check && error instanceof VersionConflict && error.stream === check.stream && attempt < GUARD_RETRIES) {
          await guard!.moved();
          continue;
        }
        throw failure;
      }
      if (record) {
        record.landed();
        written = written.filter((e) => e.stream !== record.write.stream);
      }
      this.appends++;
      for (const w of writes) this.stored.delete(w.stream);
      for (const entity of (opening ?? this.openedBy(writes, written)).values()) this.resident.keep(entity);
      this.bus.emit('committed', written);
      return written;
    }
  }

  /**
   * The entity streams an append opens, each from the events and the
   * snapshot it writes (what a later rehydration would resume from): made
   * resident once the append lands, so a stream just written is never read
   * back.
   */
  private openedBy(writes: StreamWrite[], written: JournalEvent[]): Map<string, Entity> {
    let opened: Map<string, Entity> | undefined;
    for (const write of writes) {
      const definition = write.expectedVersion === 0 ? this.definitions.get(write.events[0]?.kind) : undefined;
      if (!definition) continue;
      const events = written.filter((w) => w.stream === write.stream);
      (opened ??= new Map()).set(write.stream, new Entity(definition, events, write.snapshot && { version: events.length, ...placed(write.snapshot, events) }));
    }
    return opened ?? NONE_OPENED;
  }

  /**
   * One stamped fact on a plain stream (no machine: assets, grains, keys,
   * ledgers), at the version the caller holds for it.
   */
  factWrite(stream: string, expectedVersion: number, fact: Fact, subject: string = stream): StreamWrite {
    return { stream, expectedVersion, events: [factToEvent(fact, subject, this.clock.stamp(), { type: fact.kind })] };
  }

  /** Appends one stamped fact to a plain stream, at the version the caller holds for it. */
  appendFact(grain: string, stream: string, expectedVersion: number, fact: Fact, subject: string = stream): Promise<JournalEvent[]> {
    return this.append(grain, [this.factWrite(stream, expectedVersion, fact, subject)]);
  }

  /**
   * Opens a plain stream with its one stamped fact, at version 0: a stream of
   * that name already written is a VersionConflict, so nothing is written twice.
   */
  openStream(grain: string, stream: string, fact: Fact, subject: string = stream): Promise<JournalEvent[]> {
    return this.appendFact(grain, stream, 0, fact, subject);
  }

  /** Whether `id`'s entity is in memory (a reader that would otherwise look up a row answers it from there). */
  isResident(id: string): boolean {
    return this.resident.has(id);
  }

  get residentCount(): number {
    return this.resident.size;
  }
}
