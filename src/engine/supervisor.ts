/**
 * The supervisor: process-per-entity. Each Matter, Deadline Ladder and
 * Enrollment is an XState actor with its own mailbox. A command runs inside the
 * mailbox; the Gate decides; an acceptance is appended to the journal with the
 * stream's expected version, and only once the append is durable does the
 * actor advance and the caller get its answer. A refusal writes nothing.
 *
 * Actors are rebuilt lazily, on first touch, by folding their journaled events
 * through the machine's pure `transition()`. Idle actors are passivated (least
 * recently used first) so memory stays bounded however many entities exist.
 *
 * Each entity holds a started XState actor. A command's transition is computed
 * once, purely, by `preview` (the Gate decides on it and its facts are
 * journaled); after the append is durable `commit` sends the events to the
 * actor, which adopts the previewed snapshots instead of computing them again.
 */
import { type AnyMachineSnapshot, type AnyStateMachine, type EventFromLogic, type InputFrom } from 'xstate';
import type { Clock } from '../domain/clock.ts';
import { refuse, type Refusal } from '../domain/refusal.ts';
import type { JournalEvent, JournalStore, NewEvent, StreamWrite } from '../journal/store.ts';
import type { CommitBus } from './bus.ts';
import { emittedFacts, Entity, factToEvent, pureTransition, type EntityDefinition, type Fact, type Step } from './entity.ts';
import { reaches } from './grains.ts';
import { Mailboxes } from './mailbox.ts';

export interface SupervisorOptions {
  journal: JournalStore;
  bus: CommitBus;
  clock: Clock;
  /** How many idle actors stay resident before the least recently used is passivated. */
  residentActors?: number;
  /** The kinds of entity whose streams are actors (Matters, Deadline Ladders, Enrollments). */
  entities: EntityDefinition[];
}

export interface CommitOptions {
  derive?: (fact: Fact) => NewEvent[];
  alsoWrite?: (versionAfter: number) => StreamWrite[];
}

/** A previewed command: the facts each event would emit (null once one is refused) and the steps it would take. */
interface Preview {
  from: AnyMachineSnapshot;
  events: unknown[];
  facts: Fact[][] | null;
  steps: Step[];
}

export class Supervisor {
  readonly journal: JournalStore;
  readonly bus: CommitBus;
  readonly clock: Clock;
  private readonly mailboxes = new Mailboxes();
  private readonly resident = new Map<string, Entity>();
  private readonly hydrating = new Map<string, Promise<Entity | null>>();
  /**
   * The last preview of each entity. Snapshots are immutable and machines pure,
   * so it holds while the entity's snapshot is the one it started from: a Gate
   * that previews and then commits the same events pays for the transition once.
   */
  private readonly previews = new WeakMap<Entity, Preview>();
  private readonly capacity: number;
  /** Entity definitions by the kind of the event that opens their streams. */
  private readonly definitions: Map<string, EntityDefinition>;

  constructor(options: SupervisorOptions) {
    this.journal = options.journal;
    this.bus = options.bus;
    this.clock = options.clock;
    this.capacity = options.residentActors ?? 20_000;
    this.definitions = new Map(options.entities.map((d) => [d.openedKind, d]));
  }

  /** The live entity, rehydrated from the journal on first touch; null when no such stream. */
  async load<M extends AnyStateMachine>(definition: EntityDefinition<M>, id: string): Promise<Entity<M> | null> {
    const hit = this.resident.get(id);
    if (hit) {
      this.resident.delete(id);
      this.resident.set(id, hit);
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

  /** The live entity when `grain` reaches it (`reaches`); null when there is no such stream or it lies beyond the grain. */
  async loadIn<M extends AnyStateMachine>(definition: EntityDefinition<M>, id: string, grain: string): Promise<Entity<M> | null> {
    const entity = await this.load(definition, id);
    return entity && reaches(grain, entity.grain) ? entity : null;
  }

  private async hydrate(definition: EntityDefinition, id: string): Promise<Entity | null> {
    const journal = await this.journal.readStream(id);
    if (journal.length === 0 || journal[0].kind !== definition.openedKind) return null;
    const entity = new Entity(definition, journal);
    this.keep(entity);
    return entity;
  }

  private keep(entity: Entity): void {
    this.resident.set(entity.id, entity);
    if (this.resident.size <= this.capacity) return;
    for (const [id, idle] of this.resident) {
      if (this.resident.size <= this.capacity) break;
      if (this.mailboxes.isBusy(id)) continue;
      this.resident.delete(id);
      idle.stop();
    }
  }

  /**
   * Runs `work` inside the entity's mailbox, strictly after every earlier
   * command to the same entity. Throws the caller's `notFound` refusal when the
   * entity does not exist in `grain`.
   */
  dispatch<M extends AnyStateMachine, T>(definition: EntityDefinition<M>, id: string, grain: string, notFound: () => Refusal, work: (entity: Entity<M>) => Promise<T>): Promise<T> {
    return this.mailboxes.run(id, async () => {
      const entity = await this.loadIn(definition, id, grain);
      if (!entity) throw notFound();
      return work(entity);
    });
  }

  /** Serializes work under one key, as a mailbox does for an actor: a key's spend, a conflicts ledger, a grain's declarations. */
  exclusive<T>(key: string, work: () => Promise<T>): Promise<T> {
    return this.mailboxes.run(key, work);
  }

  /**
   * Would the machine accept these events, in order, from the entity's state?
   * Returns the facts each would emit, or null at the first refused event.
   */
  preview<M extends AnyStateMachine>(entity: Entity<M>, events: Array<EventFromLogic<M>>): Fact[][] | null {
    return this.previewSteps(entity, events).facts;
  }

  private previewSteps(entity: Entity, events: unknown[]): Preview {
    const from = entity.snapshot() as AnyMachineSnapshot;
    const memo = this.previews.get(entity);
    if (memo && memo.from === from && memo.events.length === events.length && memo.events.every((e, i) => e === events[i])) return memo;
    let snapshot = from;
    const steps: Step[] = [];
    let facts: Fact[][] | null = [];
    for (const event of events) {
      if (!snapshot.can(event as never)) {
        facts = null;
        break;
      }
      const [next, actions] = pureTransition(entity.definition.machine, snapshot as never, event as never);
      facts.push(emittedFacts(actions as never));
      steps.push({ from: snapshot, event, next });
      snapshot = next as AnyMachineSnapshot;
    }
    const preview = { from, events: [...events], facts, steps };
    this.previews.set(entity, preview);
    return preview;
  }

  /**
   * Commits machine events on an entity: each must be accepted by the machine
   * (the caller's Gate has decided); the facts they emit are journaled with the
   * expected version, then the actor advances. `derive` may add journal-only
   * events after a fact (they carry no cause, so a fold never replays them).
   * `alsoWrite` adds writes to other plain streams in the same transaction,
   * given the entity's version once the commit lands (a record of the
   * request that caused it).
   */
  async commit<M extends AnyStateMachine>(entity: Entity<M>, events: Array<EventFromLogic<M>>, options: CommitOptions = {}): Promise<JournalEvent[]> {
    const { facts, steps } = this.previewSteps(entity, events);
    if (!facts) throw refuse.conflict('STATE_REFUSES', `${entity.id} is in a state that does not accept ${events.map((e) => e.type).join(', ')}`);
    const newEvents: NewEvent[] = [];
    events.forEach((event, i) => {
      for (const fact of facts[i]) {
        // A stream keeps the subject it opened with (a ladder speaks of its Asset).
        newEvents.push(factToEvent(fact, entity.opened.subject, this.clock.stamp(), event));
        if (options.derive) newEvents.push(...options.derive(fact));
      }
    });
    const own: StreamWrite = { stream: entity.id, expectedVersion: entity.version, events: newEvents };
    const written = await this.append(entity.grain, [own, ...(options.alsoWrite?.(entity.version + newEvents.length) ?? [])]);
    // The preview is spent: forget it rather than keep the old snapshot alive.
    this.previews.delete(entity);
    entity.advance(steps as Array<Step<M>>, written.filter((e) => e.stream === entity.id));
    return written;
  }

  /**
   * Opens a new entity stream: the opening fact carries the machine input as
   * its cause so a later fold can rebuild the actor. The writes `alsoWrite`
   * returns land in the same transaction (an Asset minted with its Matter, its
   * ladder, ...); it is called after the opening fact is stamped. Returns the
   * entity and everything the transaction wrote.
   */
  async open<M extends AnyStateMachine>(definition: EntityDefinition<M>, grain: string, id: string, input: InputFrom<M>, opened: Fact, alsoWrite: () => StreamWrite[] = () => []): Promise<{ entity: Entity<M>; written: JournalEvent[] }> {
    // Checked before anything is written: the entity is made resident by `append`, from its definition.
    if (this.definitions.get(definition.openedKind) !== definition) throw new Error(`${definition.openedKind} is not among the supervisor's entity definitions`);
    return this.mailboxes.run(id, async () => {
      // The opening fact is stamped first so instants follow journal order.
      const first = this.openingWrite(definition, id, id, input, opened);
      const written = await this.append(grain, [first, ...alsoWrite()]);
      return { entity: this.resident.get(id) as unknown as Entity<M>, written };
    });
  }

  /**
   * The write that opens an entity stream: its one opening fact, whose cause
   * carries the machine input that `fold` rebuilds the actor from. For a
   * stream opened inside another's transaction (a Matter's ladder) as for
   * `open` itself.
   */
  openingWrite<M extends AnyStateMachine>(definition: EntityDefinition<M>, stream: string, subject: string, input: InputFrom<M>, opened: Fact): StreamWrite {
    return { stream, expectedVersion: 0, events: [factToEvent({ ...opened, kind: definition.openedKind }, subject, this.clock.stamp(), { type: 'xstate.init', input })] };
  }

  /** Appends and announces: the bus hears of a write only after it is durable. */
  async append(grain: string, writes: StreamWrite[]): Promise<JournalEvent[]> {
    const written = await this.journal.append(grain, writes);
    this.keepOpened(written);
    this.bus.emit('committed', written);
    return written;
  }

  /**
   * An entity stream a commit opened becomes resident from the events it
   * wrote, as a fold of them (the same fold a later rehydration would run):
   * a stream just written is never read back.
   */
  private keepOpened(written: JournalEvent[]): void {
    for (const opening of written) {
      const definition = opening.version === 1 ? this.definitions.get(opening.kind) : undefined;
      if (definition) this.keep(new Entity(definition, written.filter((w) => w.stream === opening.stream)));
    }
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

  get residentCount(): number {
    return this.resident.size;
  }
}
