/**
 * Where Matters gather (`GET …/inspection/matters`, `…/deadlines`,
 * `/firms/{firmId}/inspection/enrollments`, `src/engine/population.ts`): a
 * grain's records of one machine by state and by transition, and a state's
 * records a page at a time.
 *
 * Like the inspection's, this module names the components it points at by
 * name (`refTo`), so components.ts can list these without a cycle.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { AnyStateMachine } from 'xstate';
import { deadlineLadderMachine } from '../../machines/deadline-ladder.ts';
import { pathOf, stateNodes } from '../../machines/edges.ts';
import { enrollmentMachine } from '../../machines/enrollment.ts';
import { matterMachine } from '../../machines/matter.ts';
import { Arr, At, Bool, Cursor, Enum, EXAMPLE, Opt, PageSize, Str, StrEx, Strict } from './common.ts';

const refTo = <T = unknown>(name: string, description?: string) => Type.Unsafe<T>({ $ref: `${name}#`, ...(description ? { description } : {}) });
const named = <T extends object>(name: string, schema: T): T & { $id: string } => ({ ...schema, $id: name });

const WS = `/workspaces/${EXAMPLE.workspace}`;
const MATTER_PATH = `${WS}/matters/${EXAMPLE.matter}`;
const Count = (description: string, example = 3) => Type.Integer({ minimum: 0, description, examples: [example] });

export const PopulationMember = named('PopulationMember', Strict({
  id: Type.String({ description: 'the Matter id, the Asset id of a ladder, or the Enrollment id', examples: [EXAMPLE.matter] }),
  since: At('the instant of the fact that entered the state'),
  seq: Type.Integer({ description: 'that fact\'s seq in the grain: records in a state are ordered by it, oldest first (a page\'s `nextAfter` is its last)', examples: [17] }),
  ageSeconds: Count('whole seconds in the state, as of the answer', 3600),
  version: Type.Integer({ minimum: 1, description: 'the record\'s version (its stream\'s events)', examples: [5] }),
  links: Strict({
    entity: Type.String({ description: 'the record\'s own read (an Enrollment\'s: its firm\'s roster of Enrollments)', examples: [MATTER_PATH] }),
    inspect: Type.String({ description: 'its inspector page (HTML; an Enrollment\'s: its member\'s current Enrollment)', examples: [`${MATTER_PATH}/inspect`] }),
    inspection: Type.String({ description: 'its inspection, the data that page draws', examples: [`${MATTER_PATH}/inspection`] }),
  }),
}, 'one record in a state: which, since when, and where to inspect it'));

export const PopulationState = named('PopulationState', Strict({
  path: Type.String({ description: 'the state, as a dotted path of the machine (as the diagram names it: `state:<path>`)', examples: ['open.waiting_on_signer'] }),
  final: Bool,
  tags: Arr(Str, { description: 'the state\'s tags (who a record in it waits on)' }),
  count: Count('how many of the grain\'s records are in it now'),
  facets: Arr(Strict({ name: Type.String({ examples: ['vacant'] }), count: Count('how many of them show it', 1) }), { description: 'how many of them show each of the machine\'s facets (`facets` of the population); none for a machine without' }),
  oldest: Opt(refTo('PopulationMember', 'the record in the state longest; absent when none is')),
  links: Strict({ members: Type.String({ description: 'its records, a page at a time, oldest first', examples: [`${WS}/inspection/matters/states/open.waiting_on_signer`] }) }),
}, 'one state of the machine and the records in it'));

export const Population = named('Population', Strict({
  subject: Strict({
    kind: Enum(['matter', 'deadline-ladder', 'enrollment'] as const, 'which records are counted'),
    grain: StrEx(EXAMPLE.workspace, { description: 'the grain counted: a sandbox grain, or at the top level the calling key\'s own (its id)' }),
    links: Strict({ self: Type.String({ description: 'this answer', examples: [`${WS}/inspection/matters`] }) }),
  }),
  machine: Strict({
    id: Type.String({ examples: ['matter'] }),
    version: Type.Integer({ minimum: 1, examples: [1] }),
    diagram: Type.String({ description: 'the machine\'s generated diagram (SVG): its states are `state:<path>`, its edges `t:<edge>` (machines/edges.ts edgeKey)', examples: ['/docs/diagrams/matter.svg'] }),
  }),
  asOf: At('the instant the ages are counted to'),
  total: Count('how many records of the machine the grain holds', 12),
  states: Arr(refTo('PopulationState'), { description: 'every state a record can stand in (the machine\'s atomic and final states), in declaration order' }),
  transitions: Arr(Strict({
    edge: Type.String({ description: 'the edge, `<from> <EVENT>[ [guard]] -> <to>` (a targetless edge\'s target is `(stays)` or `(refuses)`), as the diagrams and the inspection name it', examples: ['open.review ESCALATE -> open.waiting_on_signer'] }),
    count: Count('how many times the grain\'s records took it'),
  }), { description: 'every edge of the machine, in declaration order, with how many times it was taken' }),
  facets: Arr(Strict({
    name: Type.String({ examples: ['vacant'] }),
    description: Type.String({ examples: ['open with no monitoring owner named: the ladder view\'s alarm is vacant'] }),
    count: Count('how many records show it (over every state)', 2),
  }), { description: 'what the population counts beside states (a Deadline Ladder\'s notice, vacancy and cadence); none for the Matter and Enrollment machines' }),
}, 'where a grain\'s records of one machine gather: how many in each state (and the oldest there), how many times each transition was taken'));

export const POPULATION_COMPONENTS = [PopulationMember, PopulationState, Population];
export type PopulationBody = Static<typeof Population>;

/** The states a record can stand in, as `{state}` takes them: the machine's atomic and final states. */
const statesOf = (machine: AnyStateMachine) => stateNodes(machine).filter((n) => n.type === 'atomic' || n.type === 'final').map(pathOf);

/** `{state}` of one machine's door: one of its states, by dotted path (another is refused 422 INVALID_REQUEST naming them). */
const StateParams = (machine: AnyStateMachine, example: string) => {
  const states = statesOf(machine);
  return Type.Object({ state: Type.Unsafe<string>({ ...Enum(states, `a state of the ${machine.id} machine, as a dotted path: ${states.join(', ')}`), examples: [example] }) });
};
// Path parameters are not strict: a grain prefix adds its own.
export const MatterStateParams = StateParams(matterMachine, 'open.waiting_on_signer');
export const LadderStateParams = StateParams(deadlineLadderMachine, 'open.counting');
export const EnrollmentStateParams = StateParams(enrollmentMachine, 'live.enrolled');

/** A state's records page as the lists do: after the `nextAfter` of the page before, at most `limit` (100 unless asked). */
export const MembersQuery = Strict({
  after: Opt(Cursor('the `nextAfter` of the page before (a seq: the records that entered the state after it)')),
  limit: Opt(PageSize(500, 100)),
});
