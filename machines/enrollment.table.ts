/**
 * The Enrollment lifecycle of the spec (`enrolled → amended → revoked`,
 * append-only), as data. `test/enrollment.test.ts` holds
 * `enrollmentMachine`'s edges equal to these rows.
 */
import type { Edge } from './edges.ts';

export const enrollmentTable: readonly Edge[] = [
  // A live Enrollment (enrolled or amended) takes further member-executed grants; one that adds nothing is refused.
  { from: 'live', event: 'AMEND', guard: 'addsGrant', to: 'live.amended', refuses: false },
  // Revocation ends it forever: `revoked` is final, so revoking again is refused (409 at the door).
  { from: 'live', event: 'REVOKE', guard: null, to: 'revoked', refuses: false },
];

/** The states a roster row can be derived from; `revoked` rows are blanked. */
export const enrollmentFinalStates = ['revoked'] as const;
