/**
 * The command handler: how every decided command runs, whatever the entity
 * (a Matter, a Deadline Ladder, an Enrollment), in one place, as emmett's
 * `CommandHandler` and Akka's `EventSourcedBehavior` run theirs:
 *
 * 1. in the entity's mailbox, after every earlier command to it;
 * 2. on the entity as its journal holds it (resident, or rebuilt);
 * 3. only if it is still at the version the caller decided on (If-Match);
 * 4. decided by the decider beside its machine (after asking the ports the
 *    decision needs): a refusal is worded by the catalog and nothing is
 *    written, or
 * 5. committed (`Supervisor.commit`: the actor takes the events, their facts
 *    are appended with the entity's expected version, then readers see the
 *    new state and the bus hears of it), and
 * 6. answered from the entity as committed and what was written, still in
 *    the mailbox: an effect the answer waits for (a Gig posted, answered at
 *    once) lands before the entity's next command.
 *
 * When another process committed to the stream after it was loaded, the
 * commit wrote nothing and the command is decided again on the journal as it
 * now stands: the answer some serial order gives.
 */
import type { AnyStateMachine, EventFromLogic } from 'xstate';
import type { Decision } from '../../machines/decision.ts';
import type { Fact } from '../../machines/fact.ts';
import type { Refusal } from '../domain/refusal.ts';
import { refusalOf } from '../domain/refusals.ts';
import { VersionConflict, type JournalEvent, type NewEvent, type StreamWrite } from '../journal/store.ts';
import type { Entity, EntityDefinition } from './entity.ts';
import { tracing, tracingOn } from '../lib/telemetry.ts';
import type { Supervisor } from './supervisor.ts';

/**
 * How many times a command is decided first and again when other processes
 * moved its entity first. Each conflict is another command's commit, and a
 * Matter commits a bounded number of times, so a command is rarely beaten
 * this often; then it is refused 409 WRITE_CONTENDED, having written nothing.
 */
const STALE_RETRIES = 10;

/** A kind of entity commands are sent to: its machine, and how a command that cannot reach one is refused. */
export interface DecidedEntity<M extends AnyStateMachine = AnyStateMachine> extends EntityDefinition<M> {
  /** No stream of this kind by that id in the caller's grain. */
  notFound(id: string): Refusal;
  /** The entity moved past the version the caller's If-Match names; absent, the kind takes no If-Match. */
  versionMismatch?(id: string, expected: number, current: number): Refusal;
}

/** One command: what it decides, what else its commit writes, and what it answers. */
export interface Command<M extends AnyStateMachine, T> {
  /** The entity's version the caller decided on (If-Match); undefined, whatever it is now. */
  expectedVersion?: number;
  /** This very command's answer when it was already applied (a signed callback sent again), read from the journal; null when it was not. */
  answered?(entity: Entity<M>): Promise<T | null>;
  /** What the command does now: the decider's answer, once the ports it needs have given theirs. */
  decide(entity: Entity<M>): Decision<EventFromLogic<M>> | Promise<Decision<EventFromLogic<M>>>;
  /** Journal-only events a fact brings along in the same append (a tick's reminders). */
  derive?(entity: Entity<M>, fact: Fact): NewEvent[];
  /** Writes to other streams in the same transaction, given the entity's version once it lands (the record of a callback). */
  alsoWrite?(versionAfter: number): StreamWrite[];
  /** The answer, from the entity as committed and everything the transaction wrote, the entity's own events first. */
  reply(entity: Entity<M>, written: JournalEvent[]): T | Promise<T>;
  /**
   * The same answer said before the commit lands, from the entity as it
   * will then stand and what the transaction writes (positions given), when
   * `reply` would give it from those alone: pure, synchronous, no effect.
   * Undefined: it cannot be said before (`reply` waits for an effect). Asked
   * only under an Idempotency-Key, so the answer rides in the commit
   * (`engine/idempotency.ts`).
   */
  ahead?(entity: Entity<M>, written: JournalEvent[]): T | undefined;
}

/** The kinds of entity a command's span may name: the machines' ids. */
const ENTITY_KINDS = ['matter', 'deadline-ladder', 'enrollment'] as const;

type KindAttributes = { readonly 'legalwork.entity.kind': (typeof ENTITY_KINDS)[number] | 'unknown' };
const attributesByKind = new WeakMap<DecidedEntity, KindAttributes>();

/** A command's span names the kind of entity (its machine), never the entity. */
function spanAttributes(kind: DecidedEntity): KindAttributes {
  let attributes = attributesByKind.get(kind);
  if (!attributes) attributesByKind.set(kind, (attributes = { 'legalwork.entity.kind': ENTITY_KINDS.find((k) => k === kind.machine.id) ?? 'unknown' }));
  return attributes;
}

export class CommandHandler {
  constructor(private readonly supervisor: Supervisor) {}

  /** Runs `command` on the entity `id` of this kind that `grain` reaches, in its mailbox (traced, where traces are recorded, as one span from its queueing to its answer). */
  handle<M extends AnyStateMachine, T>(kind: DecidedEntity<M>, grain: string, id: string, command: Command<M, T>): Promise<T> {
    if (!tracingOn()) return this.inMailbox(kind, grain, id, command);
    return tracing.span(`command ${kind.machine.id}`, spanAttributes(kind), () => this.inMailbox(kind, grain, id, command));
  }

  private inMailbox<M extends AnyStateMachine, T>(kind: DecidedEntity<M>, grain: string, id: string, command: Command<M, T>): Promise<T> {
    return this.supervisor.mailboxes.run(id, async () => {
      for (let attempt = 1; ; attempt++) {
        const entity = await this.supervisor.loadIn(kind, id, grain);
        if (!entity) throw kind.notFound(id);
        const loadedAt = entity.version;
        try {
          return await this.run(kind, entity, command);
        } catch (error) {
          // Another process committed to this stream after it was loaded: the commit
          // dropped the stale actor and wrote nothing, so the command is decided again.
          // Not once this command has committed: a retry would repeat that.
          const stale = error instanceof VersionConflict && error.stream === id && entity.version === loadedAt;
          if (!stale || attempt >= STALE_RETRIES) throw error;
        }
      }
    });
  }

  /** Runs `command` on an entity whose mailbox the caller holds (an answer applied inside the command that asked for it). */
  async run<M extends AnyStateMachine, T>(kind: DecidedEntity<M>, entity: Entity<M>, command: Command<M, T>): Promise<T> {
    const expected = command.expectedVersion;
    if (expected !== undefined && entity.version !== expected) {
      if (!kind.versionMismatch) throw new Error(`a ${kind.machine.id} takes no If-Match`);
      throw kind.versionMismatch(entity.id, expected, entity.version);
    }
    const answered = await command.answered?.(entity);
    if (answered) return answered;
    const decision = await (tracingOn() ? tracing.span(`decide ${kind.machine.id}`, spanAttributes(kind), async () => command.decide(entity)) : command.decide(entity));
    if ('refuse' in decision) throw refusalOf(decision.refuse);
    const { derive, alsoWrite } = command;
    const ahead = command.ahead && ((e: Entity, w: JournalEvent[]) => command.ahead!(e as Entity<M>, w));
    let written: JournalEvent[];
    try {
      written = await this.supervisor.commit(entity, decision.send, { derive: derive && ((fact) => derive(entity, fact)), alsoWrite, ahead });
    } catch (error) {
      // Another request took one of this command's other writes first (the same callback, accepted in
      // another mailbox or process): nothing of this one was written, and its answer is that one's.
      const taken = command.answered && error instanceof VersionConflict && error.stream !== entity.id ? await command.answered(entity) : null;
      if (taken) return taken;
      throw error;
    }
    return command.reply(entity, written);
  }
}
