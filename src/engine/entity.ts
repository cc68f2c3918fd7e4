/**
 * A live entity: one XState actor (a Matter, Deadline Ladder or Enrollment)
 * together with its journal stream. The actor only ever advances after the
 * journal committed the facts its transition emitted.
 */
import { createActor, type Actor, type AnyActorScope, type AnyMachineSnapshot, type AnyStateMachine, type EventFromLogic, type ExecutableActionsFrom, type InputFrom, type SnapshotFrom } from 'xstate';
import type { JournalEvent, NewEvent } from '../journal/store.ts';

export interface EntityDefinition<M extends AnyStateMachine = AnyStateMachine> {
  /** Journal kind of the stream's first event; its `cause.input` is the machine input. */
  openedKind: string;
  machine: M;
}

export interface Fact {
  kind: string;
  verb?: string;
  by: string;
  actor?: string;
  deliverTo?: string;
  note?: string;
  summary?: string;
  data: Record<string, unknown>;
}

export class Entity<M extends AnyStateMachine = AnyStateMachine> {
  /** The stream's id, as its opening event names it. */
  readonly id: string;
  /** The grain the stream was opened in. */
  readonly grain: string;
  /** The entity's XState actor, started from its journal's fold. */
  readonly actor: Actor<M>;

  constructor(
    readonly definition: EntityDefinition<M>,
    /** The stream as journaled, oldest first; the first event opened it. */
    readonly journal: JournalEvent[],
  ) {
    this.id = journal[0].stream;
    this.grain = journal[0].grain;
    this.actor = createActor(adoptingLogic(definition.machine), { snapshot: fold(definition.machine, journal) } as never).start();
  }

  get version(): number {
    return this.journal.length;
  }

  get opened(): JournalEvent {
    return this.journal[0];
  }

  snapshot(): SnapshotFrom<M> {
    return this.actor.getSnapshot();
  }

  /**
   * Sends the committed events to the actor, each with the step the preview
   * computed for it, and keeps what its stream journaled. Called only after
   * the append is durable.
   */
  advance(steps: Array<Step<M>>, written: JournalEvent[]): void {
    for (const step of steps) {
      adopting = step;
      try {
        this.actor.send(step.event);
      } finally {
        adopting = null;
      }
    }
    this.journal.push(...written);
  }

  /** Passivation: the actor stops; the journal can always rebuild it. */
  stop(): void {
    this.actor.stop();
  }
}

/**
 * The entity's state as one name: a leaf of the machine's `open` compound, or
 * a top-level final state (the Matter and ladder machines are shaped so).
 */
export function leafStateOf(entity: Entity): string {
  const value = (entity.snapshot() as AnyMachineSnapshot).value as string | { open: string };
  return typeof value === 'string' ? value : value.open;
}

/** One previewed transition: from a snapshot, on an event, to the next snapshot. */
export interface Step<M extends AnyStateMachine = AnyStateMachine> {
  from: SnapshotFrom<M>;
  event: EventFromLogic<M>;
  next: SnapshotFrom<M>;
}

/** The step the actor being sent to should adopt; set only for the duration of one `send`. */
let adopting: Step | null = null;

/**
 * The machine as an actor runs it: a transition the Gate already previewed
 * from this very snapshot, for this very event, is adopted rather than
 * computed a second time (machines are pure and snapshots immutable, so it is
 * the same result). Its facts were already journaled from the preview, which
 * is where they are read: the actor re-executes no action. Anything else goes
 * through the machine's own transition.
 */
const adopters = new WeakMap<AnyStateMachine, AnyStateMachine>();

function adoptingLogic<M extends AnyStateMachine>(machine: M): M {
  let logic = adopters.get(machine);
  if (!logic) {
    logic = Object.create(machine) as AnyStateMachine;
    logic.transition = (snapshot, event, scope) => {
      const step = adopting;
      if (step && step.from === snapshot && step.event === event) return step.next;
      return machine.transition(snapshot, event, scope);
    };
    adopters.set(machine, logic);
  }
  return logic as M;
}

/** The facts a transition emits (via `emit`), as the machine declared them. */
export function emittedFacts(actions: ReadonlyArray<{ type: string; params?: unknown }>): Fact[] {
  return actions
    .filter((a) => a.type === 'xstate.emit')
    .map((a) => (a.params as { event: Fact & { type: string } }).event)
    .map(({ type: _type, ...fact }) => fact);
}

/**
 * One inert actor scope per machine, shared by every pure transition. XState's
 * own `transition()` builds a fresh actor on each call, and so computes the
 * machine's initial state (whose context factory throws without input): that
 * made it the most expensive step of every command. The machines here are pure
 * and spawn nothing, so a shared scope whose executor only records the actions
 * gives the same snapshot and the same actions.
 */
const scopes = new WeakMap<AnyStateMachine, Omit<AnyActorScope, 'actionExecutor'>>();

function scopeFor(machine: AnyStateMachine, record: (action: unknown) => void): AnyActorScope {
  let base = scopes.get(machine);
  if (!base) {
    const self = createActor(machine);
    base = { self, defer: () => {}, id: '', logger: () => {}, sessionId: '', stopChild: () => {}, system: self.system, emit: () => {} };
    scopes.set(machine, base);
  }
  return { ...base, actionExecutor: record } as AnyActorScope;
}

/** XState's `transition()`: the next snapshot and the actions it would execute, executing none. */
export function pureTransition<M extends AnyStateMachine>(machine: M, snapshot: SnapshotFrom<M>, event: EventFromLogic<M>): [SnapshotFrom<M>, Array<ExecutableActionsFrom<M>>] {
  const actions: Array<ExecutableActionsFrom<M>> = [];
  const next = machine.transition(snapshot as never, event, scopeFor(machine, (a) => actions.push(a as ExecutableActionsFrom<M>)) as never);
  return [next as SnapshotFrom<M>, actions];
}

/** XState's `initialTransition()`, on the shared scope. */
export function pureInitialTransition<M extends AnyStateMachine>(machine: M, input: InputFrom<M>): SnapshotFrom<M> {
  return machine.getInitialSnapshot(scopeFor(machine, () => {}) as never, input) as SnapshotFrom<M>;
}

/** Folds journaled causes through the pure transition: no side effect re-runs. */
export function fold<M extends AnyStateMachine>(machine: M, journal: JournalEvent[]): SnapshotFrom<M> {
  const input = (journal[0].cause as { input: InputFrom<M> }).input;
  let snapshot = pureInitialTransition(machine, input);
  for (let i = 1; i < journal.length; i++) {
    const cause = journal[i].cause;
    if (cause) [snapshot] = pureTransition(machine, snapshot, cause as EventFromLogic<M>);
  }
  return snapshot;
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
