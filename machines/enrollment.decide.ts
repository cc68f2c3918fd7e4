/**
 * What a member's command does to their Enrollment, decided once, from the
 * machine: the event the actor is sent, or the refusal. Whether the
 * Enrollment still lives is the machine's `status` (revoked is final);
 * whether an amendment grants anything is its guard, asked with `can`. Pure.
 */
import type { SnapshotFrom } from 'xstate';
import type { Refusal } from '../src/domain/refusal.ts';
import { refusal } from '../src/domain/refusals.ts';
import type { enrollmentMachine, EnrollmentEvent, Grant } from './enrollment.ts';

type Snapshot = SnapshotFrom<typeof enrollmentMachine>;

export type EnrollmentDecision = { send: EnrollmentEvent } | { refuse: Refusal };

/** Does the Enrollment still hold its grants (it was never revoked)? */
export const isLive = (snapshot: Snapshot): boolean => snapshot.status !== 'done';

/** An amendment must execute a grant not yet held. */
export function decideAmend(snapshot: Snapshot, grants: Grant[]): EnrollmentDecision {
  const { memberId, grants: held } = snapshot.context;
  const event: EnrollmentEvent = { type: 'AMEND', grants, executedBy: memberId };
  if (snapshot.can(event)) return { send: event };
  return { refuse: refusal('NOTHING_TO_AMEND', { memberId, grants, held }, { grants: held }) };
}

/** The member withdraws every grant; revoking again is 409. `revokedAt` names when it happened, from the journal. */
export function decideRevoke(snapshot: Snapshot, id: string, firmId: string, revokedAt?: string, reason?: string): EnrollmentDecision {
  const { memberId } = snapshot.context;
  if (!isLive(snapshot)) {
    return { refuse: refusal('ALREADY_REVOKED', { memberId, enrollmentId: id, firmId, at: revokedAt }, { memberId, enrollmentId: id }) };
  }
  return { send: { type: 'REVOKE', executedBy: memberId, ...(reason ? { reason } : {}) } };
}
