/**
 * A live entity: one XState actor (a Matter, Deadline Ladder or Enrollment)
 * together with its journal stream. The actor only ever advances after the
 * journal committed the facts its transition emitted.
 */
import { createActor, initialTransition, transition, type Actor, type AnyStateMachine, type EventFromLogic, type InputFrom, type SnapshotFrom } from 'xstate';
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
  readonly actor: Actor<M>;

  constructor(
    readonly definition: EntityDefinition<M>,
    readonly id: string,
    readonly grain: string,
    /** The stream as journaled, oldest first; the first event opened it. */
    readonly journal: JournalEvent[],
    snapshot: SnapshotFrom<M>,
  ) {
    this.actor = createActor(definition.machine, { snapshot } as never).start();
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

  /** Applies committed events to the live actor. Called only after the append is durable. */
  advance(events: Array<EventFromLogic<M>>, written: JournalEvent[]): void {
    for (const e of events) this.actor.send(e);
    this.journal.push(...written.filter((w) => w.stream === this.id));
  }
}

/** The facts a transition emits (via `emit`), as the machine declared them. */
export function emittedFacts(actions: ReadonlyArray<{ type: string; params?: unknown }>): Fact[] {
  return actions
    .filter((a) => a.type === 'xstate.emit')
    .map((a) => (a.params as { event: Fact & { type: string } }).event)
    .map(({ type: _type, ...fact }) => fact);
}

/** Folds journaled causes through the pure `transition()`: no side effect re-runs. */
export function fold<M extends AnyStateMachine>(machine: M, journal: JournalEvent[]): SnapshotFrom<M> {
  const input = (journal[0].cause as { input: InputFrom<M> }).input;
  let [snapshot] = initialTransition(machine, input);
  for (const event of journal.slice(1)) {
    if (event.cause) [snapshot] = transition(machine, snapshot, event.cause as EventFromLogic<M>);
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
