/**
 * What a member's command does to their Enrollment, decided once, from the
 * machine: the event the actor is sent, or the refusal. Whether the
 * Enrollment still lives is the machine's `status` (revoked is final);
 * whether an amendment grants anything is its guard, asked with `can`. Pure.
 */
import type { SnapshotFrom } from 'xstate';
import { refuses, sends, type Decision, type Subject } from './decision.ts';
import type { enrollmentMachine, EnrollmentEvent, Grant } from './enrollment.ts';

type Snapshot = SnapshotFrom<typeof enrollmentMachine>;
type Enrollment = Subject<Snapshot>;

/** Every refusal an Enrollment decider names (the specs cover each). */
export const ENROLLMENT_REFUSALS = ['NOTHING_TO_AMEND', 'ALREADY_REVOKED'] as const;

export type EnrollmentDecision = Decision<EnrollmentEvent>;

const refused = refuses<(typeof ENROLLMENT_REFUSALS)[number]>;

/** Does the Enrollment still hold its grants (it was never revoked)? */
export const isLive = (snapshot: Snapshot): boolean => snapshot.status !== 'done';

/** An amendment must execute a grant not yet held. */
export function decideAmend(enrollment: Enrollment, { grants }: { grants: Grant[] }): EnrollmentDecision {
  const snapshot = enrollment.snapshot();
  const { memberId, grants: held } = snapshot.context;
  const event: EnrollmentEvent = { type: 'AMEND', grants, executedBy: memberId };
  return snapshot.can(event) ? sends(event) : refused('NOTHING_TO_AMEND', { memberId, grants, held }, { grants: held });
}

/** The member withdraws every grant; revoking again is 409, naming when it happened (`revokedAt`, read from the journal). */
export function decideRevoke(enrollment: Enrollment, { revokedAt, reason }: { revokedAt?: string; reason?: string }): EnrollmentDecision {
  const snapshot = enrollment.snapshot();
  const { memberId, firmId } = snapshot.context;
  if (!isLive(snapshot)) return refused('ALREADY_REVOKED', { memberId, enrollmentId: enrollment.id, firmId, at: revokedAt }, { memberId, enrollmentId: enrollment.id });
  return sends({ type: 'REVOKE', executedBy: memberId, ...(reason ? { reason } : {}) });
}

/** Every command an Enrollment takes, by name: what the inspection asks of each. */
export const enrollmentDecider = { amend: decideAmend, revoke: decideRevoke };
