/**
 * The sandbox member directory of firm grains, and the roster derivation.
 *
 * A roster row is derived, never scored: Enrollment status plus three binary
 * facts (credential live, standing fresh, coverage in force). In the sandbox
 * those facts come from this directory, which is synthetic and deterministic;
 * no Register is consulted. A member id outside the directory is unknown (422).
 */
import type { EnrollmentStatus, Grant } from '../../machines/enrollment.ts';
import type { MatterType } from './matter-types.ts';

export interface MemberFacts {
  credentialLive: boolean;
  standingFresh: boolean;
  coverageInForce: boolean;
}

/** Acts a member settled as a Signer, in the synthetic state the remittance view aggregates. */
export interface SettledActs {
  matterType: MatterType;
  attestedActs: number;
}

export interface SandboxMember {
  memberId: string;
  name: string;
  promise: string;
  facts: MemberFacts;
  /** The member executes its own revocation as soon as its enrollment is journaled. */
  revokesAfterEnrolling: boolean;
  settled: SettledActs[];
}

export const FIRM_MEMBERS: readonly SandboxMember[] = [
  {
    memberId: 'mb_fixture_eligible',
    name: 'eligible-member',
    promise: 'always derives eligible on the roster (credential live, standing fresh, coverage in force)',
    facts: { credentialLive: true, standingFresh: true, coverageInForce: true },
    revokesAfterEnrolling: false,
    settled: [
      { matterType: 'patent_provisional', attestedActs: 2 },
      { matterType: 'demand_letter', attestedActs: 1 },
    ],
  },
  {
    memberId: 'mb_fixture_suspended',
    name: 'suspended-member',
    promise: 'always derives ineligible on the standing predicate, without any Register consulted',
    facts: { credentialLive: true, standingFresh: false, coverageInForce: true },
    revokesAfterEnrolling: false,
    settled: [{ matterType: 'contract_review', attestedActs: 1 }],
  },
  {
    memberId: 'mb_fixture_revoking',
    name: 'revoking-member',
    promise: 'enrolls, then revokes mid-scenario (its own revocation is journaled right after its enrollment); the next roster read blanks the row',
    facts: { credentialLive: true, standingFresh: true, coverageInForce: true },
    revokesAfterEnrolling: true,
    settled: [{ matterType: 'trademark_office_action', attestedActs: 1 }],
  },
];

export const memberOf = (memberId: string): SandboxMember | undefined => FIRM_MEMBERS.find((m) => m.memberId === memberId);

/** GET /firms/{id}/fixtures: `{name, memberId, promise}` per member. */
export const FIRM_FIXTURE_LISTING = FIRM_MEMBERS.map(({ name, memberId, promise }) => ({ name, memberId, promise }));

/** The declared synthetic probe act every roster read shows: what was checked, and how. */
export const ROSTER_PROBE = {
  act: 'synthetic-roster-probe',
  effect: 'read',
  synthetic: true,
  checks: ['credential live', 'standing fresh', 'coverage in force'],
  source: 'the sandbox member directory (GET /firms/{id}/fixtures)',
  registerConsulted: false,
  scored: false,
} as const;

export type FailingPredicate = 'enrollment' | 'credential' | 'standing' | 'coverage';

export interface RosterRow {
  memberId: string;
  eligible: boolean;
  /** The first predicate that fails, named when `eligible` is false. */
  failingPredicate?: FailingPredicate;
  status: EnrollmentStatus;
  grants: Grant[];
  facts: MemberFacts;
}

/** Eligible iff the Enrollment is live and all three binary facts hold; the first failure is named. */
export function deriveRosterRow(memberId: string, status: EnrollmentStatus, grants: Grant[], facts: MemberFacts): RosterRow {
  const failing: FailingPredicate | undefined =
    status === 'revoked' ? 'enrollment' : !facts.credentialLive ? 'credential' : !facts.standingFresh ? 'standing' : !facts.coverageInForce ? 'coverage' : undefined;
  return { memberId, eligible: failing === undefined, ...(failing ? { failingPredicate: failing } : {}), status, grants, facts };
}
