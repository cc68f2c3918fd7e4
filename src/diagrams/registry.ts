/**
 * The machines that get diagrams and a coverage line: one entry each. The
 * diagram generator, its freshness test, `npm run test:model` and the docs
 * page's diagram list all read this list, so a new machine is added here once.
 */
import type { AnyStateMachine } from 'xstate';
import { deadlineLadderMachine } from '../../machines/deadline-ladder.ts';
import { enrollmentMachine } from '../../machines/enrollment.ts';
import { matterMachine } from '../../machines/matter.ts';

export interface MachineEntry {
  /** File stem of its diagrams and its model test (`test/model/<name>.model.test.ts`). */
  name: string;
  machine: AnyStateMachine;
  /** Where the machine is defined, relative to the repository root. */
  source: string;
  title: string;
  /** What the machine is, for `visualizations/README.md`. */
  summary: string;
  /** The same in one line, for the diagram list on the docs page. */
  about: string;
}

export const MACHINES: readonly MachineEntry[] = [
  {
    name: 'matter',
    machine: matterMachine,
    source: 'machines/matter.ts',
    title: 'Matter',
    summary:
      "One Client's one legal objective, driven through the six Stage Verbs (intake, prepare, examine, review, sign, file) to one of four terminals. The reserved acts `sign` and `file` escalate as a Gig to a licensed Signer (`waiting_on_signer`), whose answer attests, sends back to `prepare`, or declines into `needs_client_direction` until the Client speaks. A B2A2D Matter cannot pass intake without the Client's journaled consent; `fulfilled` is reachable only off a filed receipt.",
    about: 'intake → prepare → examine → review → sign → file; reserved acts wait on a Signer; four terminals',
  },
  {
    name: 'deadline-ladder',
    machine: deadlineLadderMachine,
    source: 'machines/deadline-ladder.ts',
    title: 'Deadline Ladder',
    summary:
      "One Asset obligation counting down to its deadline on explicit ticks, never on wall time: the notice rung at 30 days, a daily human acknowledgment from 7 days down to 1, and the terminal rung at 0. Evidence closes a one-shot ladder and rolls a recurring one forward a cadence; at the terminal rung only a listed outcome resolves it.",
    about: 'moves on explicit ticks only: the notice rung at 30 days, daily acks from 7 to 1, the terminal rung at 0',
  },
  {
    name: 'enrollment',
    machine: enrollmentMachine,
    source: 'machines/enrollment.ts',
    title: 'Enrollment',
    summary:
      "One member's Enrollment in one firm: the grants the member executed (roster, remittance, routing), amended only by adding grants, and revoked forever. A firm is an envelope of those grants, never a marketplace actor.",
    about: "a member's grants in a firm: enrolled, amended, revoked",
  },
];
