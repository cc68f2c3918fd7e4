/**
 * Given/when/then specifications of a machine and the decider beside it, as
 * emmett's `DeciderSpecification` writes them: given the events an entity's
 * actor took (its journal's causes), when a command is decided, then these
 * events are sent, and the machine takes each, or this refusal is named,
 * and the catalog words it. Pure and fast: the machine's `transition()`,
 * no actor, no journal, no HTTP.
 *
 * ```ts
 * const matter = specOf(matterMachine, { consumerPattern: 'B2A' }, 'mt_spec');
 * matter.given(ADVANCE, ADVANCE, ADVANCE).when(decideAdvance, { by: 'agent', gigId: 'gig_1', gate: null }).then([{ type: 'ESCALATE', gigId: 'gig_1' }]);
 * matter.given(WITHDRAWN).when(decideConsent, { actor: 'client', scope: 's' }).then('MATTER_TERMINAL');
 * ```
 *
 * A spec counts the transitions its `then` sends take and the refusals it
 * names, so a spec file ends by requiring every row of the machine's table
 * and every code its decider can name (`uncovered`).
 */
import { expect } from 'vitest';
import { initialTransition, transition, type AnyMachineSnapshot, type AnyStateMachine, type EventFromLogic, type InputFrom, type SnapshotFrom } from 'xstate';
import type { Decision, Subject } from '../../machines/decision.ts';
import { edgeIndex, edgeKey, type Edge } from '../../machines/edges.ts';
import type { Refusal } from '../../src/domain/refusal.ts';
import { refusalOf, type RefusalCode } from '../../src/domain/refusals.ts';
import { emittedFacts } from './facts.ts';

type Fact = ReturnType<typeof emittedFacts>[number];
type Decide<M extends AnyStateMachine, C> = (subject: Subject<SnapshotFrom<M>>, command: C) => Decision<EventFromLogic<M>>;

/** What the specs of one machine and its decider have exercised. */
interface Covered {
  edges: Set<string>;
  codes: Set<string>;
}

/** A state the machine reached, and the facts it emitted on the way there. */
export class Given<M extends AnyStateMachine> implements Subject<SnapshotFrom<M>> {
  constructor(
    private readonly machine: M,
    readonly id: string,
    private readonly state: SnapshotFrom<M>,
    /** The facts the events that led here emitted, in order. */
    readonly facts: Fact[],
    private readonly covered: Covered,
  ) {}

  snapshot(): SnapshotFrom<M> {
    return this.state;
  }

  /** The state's value, as `snapshot().value`. */
  get value(): unknown {
    return (this.state as AnyMachineSnapshot).value;
  }

  /** Further events, each of which the machine must take; the facts are those of these events. */
  and(...events: Array<EventFromLogic<M>>): Given<M> {
    return this.taking(events, false);
  }

  /** The machine does not take `event` here (counting the row, when the state declares it only to refuse it). */
  refuses(event: EventFromLogic<M>): this {
    const snapshot = this.state as AnyMachineSnapshot;
    expect(snapshot.can(event), `${JSON.stringify(event)} from ${JSON.stringify(snapshot.value)}`).toBe(false);
    for (const edge of edgeIndex(this.machine).selected(snapshot, event)) this.covered.edges.add(edge);
    return this;
  }

  when<C>(decide: Decide<M, C>, command: C): When<M> {
    return new When(this, decide(this, command));
  }

  /** The state after `events`, each checked first and, when `count`, counted as a row a spec covered. */
  taking(events: Array<EventFromLogic<M>>, count: boolean): Given<M> {
    let state = this.state as AnyMachineSnapshot;
    const facts: Fact[] = [];
    for (const event of events) {
      expect(state.can(event), `the machine takes ${JSON.stringify(event)} from ${JSON.stringify(state.value)}`).toBe(true);
      if (count) for (const edge of edgeIndex(this.machine).selected(state, event)) this.covered.edges.add(edge);
      const [next, actions] = transition(this.machine, state as never, event);
      facts.push(...emittedFacts(actions as never));
      state = next as AnyMachineSnapshot;
    }
    return new Given(this.machine, this.id, state as SnapshotFrom<M>, facts, this.covered);
  }

  /** Where the counts go: the spec this state came from. */
  get coverage(): Covered {
    return this.covered;
  }
}

export class When<M extends AnyStateMachine> {
  constructor(
    private readonly given: Given<M>,
    /** What the decider answered. */
    readonly decision: Decision<EventFromLogic<M>>,
  ) {}

  /** The decider sends exactly `events`, and the machine takes each: the state after them, with the facts they emitted. */
  then(events: Array<EventFromLogic<M>>): Given<M>;
  /** The decider names refusal `code` (its arguments matching `args`), which the catalog words: the refusal as the wire carries it. */
  then(code: RefusalCode, args?: object): Refusal;
  then(expected: Array<EventFromLogic<M>> | RefusalCode, args?: object): Given<M> | Refusal {
    if (typeof expected !== 'string') {
      expect(this.decision).toEqual({ send: expected });
      return this.given.taking(expected, true);
    }
    expect('refuse' in this.decision ? this.decision.refuse.code : this.decision, 'the refusal named').toBe(expected);
    const named = (this.decision as { refuse: { code: string; args: object } }).refuse;
    if (args) expect(named.args).toMatchObject(args);
    this.given.coverage.codes.add(expected);
    const worded = refusalOf(named);
    expect(worded.message, `${expected} worded from ${JSON.stringify(named.args)}`).not.toMatch(/\bundefined\b/);
    return worded;
  }
}

export interface Spec<M extends AnyStateMachine> {
  /** The entity opened from the spec's input, after `events` (each of which the machine must take). */
  given(...events: Array<EventFromLogic<M>>): Given<M>;
  /** The same spec, its entity opened from another input; counts go to the same place. */
  opened(input: Partial<InputFrom<M>>): Spec<M>;
  /** The table's rows no `then` sends (nor `refuses`) took, and the codes no `then` named. */
  uncovered(table: readonly Edge[], codes: readonly RefusalCode[]): { rows: string[]; codes: string[] };
}

/** A spec of `machine` and its decider, each entity opened from `input` and known as `id`. */
export function specOf<M extends AnyStateMachine>(machine: M, input: InputFrom<M>, id: string, covered: Covered = { edges: new Set(), codes: new Set() }): Spec<M> {
  return {
    given: (...events) => {
      const [initial] = initialTransition(machine, input as never);
      return new Given(machine, id, initial as SnapshotFrom<M>, [], covered).taking(events, false);
    },
    opened: (other) => specOf(machine, { ...(input as object), ...(other as object) } as InputFrom<M>, id, covered),
    uncovered: (table, codes) => ({
      rows: table.map(edgeKey).filter((key) => !covered.edges.has(key)),
      codes: codes.filter((code) => !covered.codes.has(code)),
    }),
  };
}
