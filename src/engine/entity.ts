/**
 * A live entity: one XState actor (a Matter, Deadline Ladder or Enrollment)
 * and its journal stream, through XState's public API only (`createActor`,
 * `send`, `on`, `getSnapshot`, `snapshot.can`).
 *
 * - A command is sent to the actor (`apply`); the facts its transition
 *   emits (`emit`) are what the supervisor journals. One transition per
 *   command: the machine runs once, in the actor.
 * - Everyone else reads the last committed snapshot (`snapshot()`), never
 *   the actor mid-command: the actor moves before the append, and if the
 *   append fails the supervisor drops the entity and the next touch rebuilds
 *   it from the journal (let it crash), so no reader ever sees a state the
 *   journal does not hold.
 * - A stream records, in its opening cause, the machine and version that
 *   opened it (`machine: 'matter@1'`; none recorded means version 1). One
 *   this code does not fold (a later version, or one no longer supported)
 *   is refused at load, never folded by another version (docs/versioning.md).
 * - Rebuilding sends the journaled causes to a fresh actor, checking each
 *   one first: a recorded event the machine refuses from the state before
 *   it, or one it now answers with another fact, stops the load with an
 *   error naming the stream, the seq, the event and the state, rather than
 *   yield a silently different state. Replaying never re-runs a side effect:
 *   the machines are pure, and nothing listens to a replay's facts.
 * - Every commit also keeps the state it reached as the stream's snapshot
 *   row, in the same transaction (`persisted`). Rebuilding resumes from that
 *   row when this machine wrote it (`snapshotMachine`) and folds only the
 *   events after it; a row that is missing, of another machine or unreadable
 *   is ignored and the whole stream folded (the row is a cache, the journal
 *   the truth). The actor itself starts on the first command: an entity
 *   that is only read never needs one (`StoredState` is read without one).
 *
 * Measured on the Matter machine (2026-11-25): `actor.send` costs 12–16 µs a
 * transition, about what a pure `machine.transition` on a shared scope did
 * (9–12 µs); XState's exported `transition()` builds a throwaway actor per
 * call and cost 35–70 µs, so it is not used on the hot path.
 */
import { createHash } from 'node:crypto';
import { createActor, type Actor, type AnyMachineSnapshot, type AnyStateMachine, type EventFromLogic, type InputFrom, type SnapshotFrom } from 'xstate';
import { edgeIndex, statePath } from '../../machines/edges.ts';
import type { Fact } from '../../machines/fact.ts';
import type { Entered, JournalEvent, NewEvent, SnapshotState, StreamSnapshot } from '../journal/store.ts';
import { facetsOf, standingOf } from './standing.ts';

export interface EntityDefinition<M extends AnyStateMachine = AnyStateMachine> {
  /** Journal kind of the stream's first event; its `cause.input` is the machine input. */
  openedKind: string;
  machine: M;
  /**
   * The machine's declared version (beside the machine in `machines/`). Every
   * opening cause records it as `machine: '<machine id>@<version>'`, and a load
   * refuses a stream opened by a version this code does not read (docs/versioning.md).
   */
  version: number;
}

/** How an opening cause names the machine that opened the stream: `matter@1`. */
export const machineTag = (definition: EntityDefinition): string => `${definition.machine.id}@${definition.version}`;

const hashes = new WeakMap<EntityDefinition, string>();

/**
 * How a snapshot row names the machine that wrote it: its tag and a hash of
 * its definition, the configuration with the source of every guard and
 * action in it (`matter@1#3fa92c…`). Any change to the machine's code, even
 * one that keeps its version, makes the rows it wrote unreadable to the new
 * code, which folds the journal instead: a snapshot is never read by a
 * machine that might reach another state from the same events. The facets
 * a row's standing counts (`standing.ts`) are hashed with it: a changed
 * facet makes the rows (and the population counts kept under their tag)
 * another build's, rebuilt from the journal.
 */
export function snapshotMachine(definition: EntityDefinition): string {
  let tag = hashes.get(definition);
  if (!tag) {
    const { machine } = definition;
    const source = (_key: string, value: unknown) => (typeof value === 'function' ? String(value) : value);
    const code = JSON.stringify([machine.config, machine.implementations, facetsOf(machine)], source);
    tag = `${machineTag(definition)}#${createHash('sha256').update(code).digest('hex').slice(0, 16)}`;
    hashes.set(definition, tag);
  }
  return tag;
}

/**
 * The machine and version an opening event records. A stream opened before
 * versions were recorded (no `machine` in its cause) was opened by version 1
 * of its definition's machine.
 */
export function openedBy(opening: JournalEvent, definition: EntityDefinition): { machine: string; version: number } {
  const tag = (opening.cause as { machine?: unknown } | undefined)?.machine;
  if (tag === undefined) return { machine: definition.machine.id, version: 1 };
  const match = typeof tag === 'string' ? /^(.+)@([1-9][0-9]*)$/.exec(tag) : null;
  return match ? { machine: match[1], version: Number(match[2]) } : { machine: String(tag), version: NaN };
}

/** A stream whose journal the machine no longer reads as it was written. */
export class UnreadableEntity extends Error {
  constructor(
    readonly stream: string,
    readonly seq: number,
    readonly event: string,
    readonly state: unknown,
    why: string,
  ) {
    super(`stream ${stream} cannot be replayed: at seq ${seq} the machine ${why} (event ${event}${state === undefined ? '' : `, state ${JSON.stringify(state)}`})`);
  }
}

/**
 * The machine's state a snapshot row holds, when this code may resume from
 * it: written by this very machine (its tag and definition hash), at a
 * version the stream has reached, and readable as one of its states. Null
 * otherwise: the caller folds the stream instead (the row is a cache).
 */
export function restoredState<M extends AnyStateMachine>(definition: EntityDefinition<M>, snapshot: StreamSnapshot | null, streamVersion: number): SnapshotFrom<M> | null {
  if (!snapshot || snapshot.machine !== snapshotMachine(definition) || !(snapshot.version >= 1 && snapshot.version <= streamVersion)) return null;
  try {
    const persisted = JSON.parse(snapshot.state) as { status?: unknown; value?: unknown; context?: unknown };
    if (persisted?.status !== 'active' && persisted?.status !== 'done') return null;
    if (persisted.context === null || typeof persisted.context !== 'object') return null;
    // Throws on a state value the machine does not have.
    return definition.machine.resolveState(persisted as never) as SnapshotFrom<M>;
  } catch {
    return null;
  }
}

/** What every reader of an entity needs: its opening, its version and its committed state. */
export interface EntityState<M extends AnyStateMachine = AnyStateMachine> {
  readonly id: string;
  readonly grain: string;
  readonly version: number;
  readonly opened: JournalEvent;
  snapshot(): SnapshotFrom<M>;
}

/** An entity as its snapshot row holds it, read without an actor: what a list or a read of an entity not in memory answers. */
export class StoredState<M extends AnyStateMachine = AnyStateMachine> implements EntityState<M> {
  readonly id: string;
  readonly grain: string;

  constructor(
    readonly opened: JournalEvent,
    readonly version: number,
    private readonly state: SnapshotFrom<M>,
  ) {
    this.id = opened.stream;
    this.grain = opened.grain;
  }

  snapshot(): SnapshotFrom<M> {
    return this.state;
  }
}

/** A snapshot's standing as the journal placed it: a write's `{event}` resolved to the seq and instant of that event among `events` (the write's own, in order). */
export function placed(snapshot: SnapshotState, events: readonly JournalEvent[]): SnapshotState {
  const entered = snapshot.standing?.entered;
  if (!entered || !('event' in entered)) return snapshot;
  const event = events[entered.event];
  return { ...snapshot, standing: { ...snapshot.standing!, entered: { seq: event.seq, at: event.at } } };
}

/** What a command's events did on the machine: the facts each emitted, the transitions they took, and which event (if any) moved it to another state last. */
export interface Applied {
  facts: Fact[][];
  transitions: string[];
  /** The index of the last event after which the state's path differed from before it; null when none moved it. */
  entered: number | null;
}

export class Entity<M extends AnyStateMachine = AnyStateMachine> implements EntityState<M> {
  /** The stream's id, as its opening event names it. */
  readonly id: string;
  /** The grain the stream was opened in. */
  readonly grain: string;
  /**
   * The version of the stream the state was resumed from: the snapshot row's,
   * or 0 when the whole stream was folded (there was no row this machine
   * could resume from). Below `version`, the row was not current, and the
   * supervisor rewrites it.
   */
  readonly resumedAt: number;
  /** The facts the actor emitted since they were last taken. */
  private emitted: Fact[] = [];
  private committed: SnapshotFrom<M>;
  /** The journaled fact that entered the committed state: where its age there counts from (the population's). */
  private entered: { seq: number; at: string };
  /** Started on the first command (or a fold): an entity only read never needs one. */
  private live: Actor<M> | null = null;

  constructor(
    readonly definition: EntityDefinition<M>,
    /** The stream as journaled, oldest first; the first event opened it. */
    readonly journal: JournalEvent[],
    /** The stream's snapshot row, if it has one: resumed from when this machine wrote it. */
    stored: StreamSnapshot | null = null,
  ) {
    this.id = journal[0].stream;
    this.grain = journal[0].grain;
    // A stream another machine or version opened is never folded by this one.
    const by = openedBy(journal[0], definition);
    if (by.machine !== definition.machine.id || by.version !== definition.version) {
      const what = Number.isNaN(by.version) ? `an unreadable machine tag ${JSON.stringify(by.machine)}` : `${by.machine}@${by.version}`;
      // No state before the opening: none is named (undefined leaves the refusal's `state` out).
      throw new UnreadableEntity(journal[0].stream, journal[0].seq, 'xstate.init', undefined, `that opened it is ${what}, and this code folds only ${machineTag(definition)}`);
    }
    // A row without its standing (an earlier build's) says not when its state was entered: folded instead.
    const entered = stored?.standing?.entered;
    const restored = entered && 'seq' in entered ? restoredState(definition, stored, journal.length) : null;
    this.resumedAt = restored ? stored!.version : 0;
    this.entered = restored ? (entered as { seq: number; at: string }) : { seq: journal[0].seq, at: journal[0].at };
    if (restored) {
      this.committed = restored;
      // Only the events the snapshot does not reflect are replayed (none, when it is current).
      if (stored!.version < journal.length) this.committed = this.replay(journal, stored!.version);
    } else {
      this.committed = this.replay(journal, 1);
    }
  }

  get version(): number {
    return this.journal.length;
  }

  get opened(): JournalEvent {
    return this.journal[0];
  }

  /** The state as the journal holds it. */
  snapshot(): SnapshotFrom<M> {
    return this.committed;
  }

  /**
   * The entity as it will stand once the commit under way lands with
   * `landing` (its events, positions given): the actor's state (between
   * `apply` and the commit it runs ahead of `snapshot()`), the journal with
   * them, the version after them. A view for an answer said before the
   * commit (`CommitOptions.ahead`); the entity itself moves only at `confirm`.
   */
  ahead(landing: JournalEvent[]): Entity<M> {
    const state = this.actor().getSnapshot();
    const journal = [...this.journal, ...landing];
    return Object.create(this, { journal: { value: journal }, committed: { value: state } }) as Entity<M>;
  }

  /**
   * The state as its snapshot row keeps it, at `version`: the committed one,
   * or (between `apply` and its commit) the actor's, with its standing.
   * `entered` names the fact that entered it when the commit under way moved
   * it (one of the write's events); otherwise it is the one already journaled.
   */
  persisted(entered: Entered = this.entered): SnapshotState {
    const machine = this.definition.machine;
    const snapshot = this.live ? (this.live.getSnapshot() as AnyMachineSnapshot) : (this.committed as AnyMachineSnapshot);
    return { machine: snapshotMachine(this.definition), state: JSON.stringify(machine.getPersistedSnapshot(snapshot)), standing: { ...standingOf(machine, snapshot), entered } };
  }

  /**
   * Sends the events to the actor, each after asking the machine whether it
   * takes it; returns what they did (the facts each emitted, the
   * transitions they took, the last that moved the state), or the index of
   * the first event refused. Refusing the first moves nothing; refusing a
   * later one leaves the actor ahead of the journal, which the caller must
   * drop the entity for.
   */
  apply(events: Array<EventFromLogic<M>>): Applied | { refusedAt: number } {
    const actor = this.actor();
    const index = edgeIndex(this.definition.machine);
    const applied: Applied = { facts: [], transitions: [], entered: null };
    for (const [i, event] of events.entries()) {
      const before = actor.getSnapshot() as AnyMachineSnapshot;
      if (!before.can(event)) return { refusedAt: i };
      // About a microsecond an event (measured on the Matter machine): the edges the population counts.
      applied.transitions.push(...index.selected(before, event));
      actor.send(event);
      applied.facts.push(this.emitted.splice(0));
      if (statePath((actor.getSnapshot() as AnyMachineSnapshot).value) !== statePath(before.value)) applied.entered = i;
    }
    return applied;
  }

  /**
   * The append of what `apply` emitted is durable: readers see the actor's
   * state from now on. `entered`: which of the written events entered that
   * state, when the commit moved it.
   */
  confirm(written: JournalEvent[], entered: number | null = null): void {
    this.journal.push(...written);
    this.committed = this.actor().getSnapshot();
    if (entered !== null) this.entered = { seq: written[entered].seq, at: written[entered].at };
  }

  /** Passivation, or a crash: the actor stops; the journal can always rebuild it. */
  stop(): void {
    this.live?.stop();
  }

  /** The entity's XState actor, started from the committed state on first use. Between a command's `apply` and its commit it runs ahead of `snapshot()`. */
  private actor(): Actor<M> {
    if (this.live) return this.live;
    const machine = this.definition.machine;
    const actor = createActor(machine, { snapshot: machine.getPersistedSnapshot(this.committed) } as never) as Actor<M>;
    return this.started(actor);
  }

  private started(actor: Actor<M>): Actor<M> {
    actor.on('*', ({ type: _type, ...fact }) => this.emitted.push(fact as unknown as Fact));
    actor.start();
    this.live = actor;
    return actor;
  }

  /**
   * Sends each journaled cause from position `from` on to the actor (a fresh
   * one from the opening's input when `from` is 1), checking that the machine
   * still takes it and answers with the recorded fact; returns the state reached.
   */
  private replay(journal: JournalEvent[], from: number): SnapshotFrom<M> {
    const actor = from === 1 ? this.started(createActor(this.definition.machine, { input: (journal[0].cause as { input: InputFrom<M> }).input } as never) as Actor<M>) : this.actor();
    for (let i = from; i < journal.length; i++) {
      const recorded = journal[i];
      const cause = recorded.cause as EventFromLogic<M> | undefined;
      // Events without a cause were derived beside a fact (a tick's reminders): nothing to replay.
      if (!cause) continue;
      const before = actor.getSnapshot() as AnyMachineSnapshot;
      if (!before.can(cause)) throw new UnreadableEntity(recorded.stream, recorded.seq, cause.type, before.value, 'refuses the recorded event');
      actor.send(cause);
      if (statePath((actor.getSnapshot() as AnyMachineSnapshot).value) !== statePath(before.value)) this.entered = { seq: recorded.seq, at: recorded.at };
      const [fact, ...more] = this.emitted.splice(0);
      if (!fact || more.length || fact.kind !== recorded.kind || (fact.verb ?? null) !== (recorded.verb ?? null)) {
        const now = fact ? `${fact.kind}${fact.verb ? ` ${fact.verb}` : ''}` : 'no fact';
        throw new UnreadableEntity(recorded.stream, recorded.seq, cause.type, before.value, `answers with ${now}${more.length ? ` and ${more.length} more` : ''} where the journal recorded ${recorded.kind}${recorded.verb ? ` ${recorded.verb}` : ''}`);
      }
    }
    return actor.getSnapshot();
  }
}

/** A journal entry for a fact, stamped and tied to the event that caused it. */
export function factToEvent(fact: Fact, subject: string, at: string, cause: object): NewEvent {
  const { kind, verb, by, actor, deliverTo, note, summary, data } = fact;
  return {
    kind,
    at,
    subject,
    summary: summary ?? note ?? (verb ? `${kind} ${verb}` : kind),
    ...(verb !== undefined ? { verb } : {}),
    by,
    ...(actor !== undefined ? { actor } : {}),
    ...(deliverTo !== undefined ? { deliverTo } : {}),
    data,
    cause: cause as Record<string, unknown>,
  };
}
