/**
 * The Enrollment machine: one member's Enrollment in one firm. A firm is an
 * envelope, never a marketplace actor: it holds grants the member executed,
 * nothing more. Lifecycle `enrolled → amended → revoked`, append-only; the
 * transition table is kept as data in `enrollment.table.ts`, and a test holds
 * this machine equal to it.
 *
 * The stream opens in `live.enrolled` with the enrollment ceremony (journaled
 * by the supervisor as `enrollment.opened`). Each further accepted event emits
 * exactly one fact: the ceremony of that act, a journaled instrument naming
 * what was granted (or revoked) and who executed it. `revoked` is final: a
 * fresh enrollment is a new member act, opened as a new Enrollment.
 *
 * Pure by construction: no I/O, no clock, no delays.
 */
import { assign, emit, setup } from 'xstate';
import { fact as factOf, type EmittedFact, type Fact } from './fact.ts';

export const ENROLLMENT_GRANTS = ['roster', 'remittance', 'routing'] as const;
export type Grant = (typeof ENROLLMENT_GRANTS)[number];
export const isGrant = (g: unknown): g is Grant => typeof g === 'string' && (ENROLLMENT_GRANTS as readonly string[]).includes(g);

export type EnrollmentStatus = 'enrolled' | 'amended' | 'revoked';

export interface EnrollmentInput {
  firmId: string;
  memberId: string;
  /** The grants executed at enrollment. */
  grants: Grant[];
}

export interface EnrollmentContext {
  firmId: string;
  memberId: string;
  grants: Grant[];
}

export type EnrollmentEvent =
  /** The member executes further grants. */
  | { type: 'AMEND'; grants: Grant[]; executedBy: string }
  /** The member withdraws every grant: the Enrollment ends, forever. */
  | { type: 'REVOKE'; executedBy: string; reason?: string };

/** Every Enrollment fact is an act the member executed. */
const fact = (f: Omit<Fact, 'by'> & { verb: EnrollmentStatus; actor: string; note: string }): EmittedFact => factOf({ by: 'member', ...f });
/** The grants an amendment adds, in the catalog's order. */
export const addedGrants = (held: readonly Grant[], asked: readonly string[]): Grant[] => ENROLLMENT_GRANTS.filter((g) => asked.includes(g) && !held.includes(g));
/** The grants held once `asked` is added to `held`, in the catalog's order. */
export const grantsAfter = (held: readonly Grant[], asked: readonly string[]): Grant[] => ENROLLMENT_GRANTS.filter((g) => held.includes(g) || asked.includes(g));

/**
 * The Enrollment machine's version, recorded in the opening cause of every stream
 * it opens (`machine: '<id>@<version>'`). Bump it when a change alters how
 * journaled events fold, and follow docs/versioning.md (an upcaster or the
 * old definition kept for the old streams; new recorded journals beside the old).
 */
export const ENROLLMENT_MACHINE_VERSION = 1;

export const enrollmentMachine = setup({
  types: {
    context: {} as EnrollmentContext,
    events: {} as EnrollmentEvent,
    input: {} as EnrollmentInput,
    emitted: {} as EmittedFact,
  },
  guards: {
    /** Every asked grant is in the catalog, and at least one is not already held. */
    addsGrant: ({ context, event }) => event.type === 'AMEND' && event.grants.length > 0 && event.grants.every(isGrant) && addedGrants(context.grants, event.grants).length > 0,
  },
}).createMachine({
  id: 'enrollment',
  context: ({ input }) => ({ firmId: input.firmId, memberId: input.memberId, grants: grantsAfter([], input.grants) }),
  initial: 'live',
  states: {
    live: {
      initial: 'enrolled',
      on: {
        AMEND: {
          guard: 'addsGrant',
          target: '.amended',
          actions: [
            emit(({ context, event }) => {
              const granted = addedGrants(context.grants, event.grants);
              return fact({
                kind: 'enrollment.amended',
                verb: 'amended',
                actor: event.executedBy,
                note: `${context.memberId} executed an amendment granting ${granted.join(', ')}`,
                data: { instrument: 'amendment', firmId: context.firmId, memberId: context.memberId, granted, grants: grantsAfter(context.grants, granted), executedBy: event.executedBy },
              });
            }),
            assign({ grants: ({ context, event }) => grantsAfter(context.grants, event.grants) }),
          ],
        },
        REVOKE: {
          target: 'revoked',
          actions: emit(({ context, event }) =>
            fact({
              kind: 'enrollment.revoked',
              verb: 'revoked',
              actor: event.executedBy,
              note: `${context.memberId}'s enrollment revoked`,
              data: { instrument: 'revocation', firmId: context.firmId, memberId: context.memberId, revoked: context.grants, executedBy: event.executedBy, ...(event.reason ? { reason: event.reason } : {}) },
            }),
          ),
        },
      },
      states: {
        enrolled: {},
        amended: {},
      },
    },
    revoked: { type: 'final' },
  },
});

/** The Enrollment's status from a snapshot's state value. */
export function enrollmentStatus(value: unknown): EnrollmentStatus {
  if (value === 'revoked') return 'revoked';
  return (value as { live: 'enrolled' | 'amended' }).live;
}
