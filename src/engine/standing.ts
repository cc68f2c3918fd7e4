/**
 * Where an entity stands on its machine, as its snapshot row keeps it for
 * the population (`population.ts`): its state's dotted path, and the facets
 * it shows. Read off the committed snapshot, the same way for every machine.
 *
 * A facet is something the population counts that is not a state: the
 * Deadline Ladder machine has three states (`open.counting`,
 * `open.terminalRung`, `resolved`), and whether a ladder has crossed its
 * notice rung, has no monitoring owner or recurs is its context, not where
 * it stands. Facets are counted for entities still active only (a final
 * state has nothing left to watch), and kept as bits of one integer column,
 * in the order declared here. Their source is part of the tag a row is
 * written under (`snapshotMachine`): a changed facet makes every row and
 * count of its machine another build's, folded again and rebuilt.
 */
import type { AnyMachineSnapshot, AnyStateMachine } from 'xstate';
import { NOTICE_RUNG_DAYS, type LadderContext } from '../../machines/deadline-ladder.ts';
import { statePath } from '../../machines/edges.ts';

export interface Facet {
  name: string;
  description: string;
  shows(snapshot: AnyMachineSnapshot): boolean;
}

const ladder = (snapshot: AnyMachineSnapshot) => snapshot.context as LadderContext;

/** Each machine's facets, by machine id; a machine not named counts none. */
const FACETS: Readonly<Record<string, readonly Facet[]>> = {
  'deadline-ladder': [
    { name: 'notice', description: `open, and its count has crossed the notice rung (${NOTICE_RUNG_DAYS} days or fewer until the deadline): the ladder view's rung is notice, daily_ack or terminal`, shows: (s) => ladder(s).days <= NOTICE_RUNG_DAYS },
    { name: 'vacant', description: 'open with no monitoring owner named: the ladder view\'s alarm is vacant', shows: (s) => ladder(s).owner === null },
    { name: 'recurring', description: 'open, and a recurring obligation: evidence rolls it one cadence forward', shows: (s) => ladder(s).recurEveryDays !== null },
  ],
};

export const facetsOf = (machine: AnyStateMachine): readonly Facet[] => FACETS[machine.id] ?? [];

/** An entity's state path and facet bits, from a committed (or just computed) snapshot. */
export function standingOf(machine: AnyStateMachine, snapshot: AnyMachineSnapshot): { path: string; facets: number } {
  let facets = 0;
  if (snapshot.status !== 'done') facetsOf(machine).forEach((facet, i) => (facets |= facet.shows(snapshot) ? 1 << i : 0));
  return { path: statePath(snapshot.value), facets };
}
