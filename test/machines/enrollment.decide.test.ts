/**
 * The Enrollment's decider, given/when/then: an amendment that grants
 * something, one that grants nothing, a revocation, and one too many.
 * Between them the specs take every row of the Enrollment's transition
 * table and name every refusal the decider can give.
 */
import { describe, expect, it } from 'vitest';
import { decideAmend, decideRevoke, ENROLLMENT_REFUSALS } from '../../machines/enrollment.decide.ts';
import { enrollmentMachine } from '../../machines/enrollment.ts';
import { enrollmentTable } from '../../machines/enrollment.table.ts';
import { specOf } from '../helpers/decider-spec.ts';

const MEMBER = 'mb_fixture_eligible';
const enrollment = specOf(enrollmentMachine, { firmId: 'fm_spec', memberId: MEMBER, grants: ['roster'] }, 'en_spec');
const REVOKED = { type: 'REVOKE', executedBy: MEMBER } as const;

describe('amend', () => {
  it('executes the grants not yet held, as the member', () => {
    const amended = enrollment.given().when(decideAmend, { grants: ['routing', 'roster'] }).then([{ type: 'AMEND', grants: ['routing', 'roster'], executedBy: MEMBER }]);
    expect(amended.value).toEqual({ live: 'amended' });
    expect(amended.facts[0].data).toMatchObject({ instrument: 'amendment', granted: ['routing'], grants: ['roster', 'routing'] });
  });

  it('refuses an amendment that grants nothing new, naming what is held', () => {
    const refusal = enrollment.given().when(decideAmend, { grants: ['roster'] }).then('NOTHING_TO_AMEND', { memberId: MEMBER, grants: ['roster'], held: ['roster'] });
    expect(refusal.toBody()).toMatchObject({ grants: ['roster'] });
  });
});

describe('revoke', () => {
  it('withdraws every grant, for good', () => {
    const revoked = enrollment.given().when(decideRevoke, { reason: 'leaving' }).then([{ type: 'REVOKE', executedBy: MEMBER, reason: 'leaving' }]);
    expect(revoked.snapshot().status).toBe('done');
    expect(revoked.facts[0].data).toMatchObject({ instrument: 'revocation', revoked: ['roster'], reason: 'leaving' });
  });

  it('refuses a second revocation, naming when the first happened', () => {
    const refusal = enrollment.given(REVOKED).when(decideRevoke, { revokedAt: '2030-01-01T00:00:00.000Z' }).then('ALREADY_REVOKED', { memberId: MEMBER, enrollmentId: 'en_spec', firmId: 'fm_spec', at: '2030-01-01T00:00:00.000Z' });
    expect(refusal.toBody()).toMatchObject({ memberId: MEMBER, enrollmentId: 'en_spec' });
  });
});

describe('the Enrollment\'s specs', () => {
  it('take every row of the transition table and name every refusal the decider gives', () => {
    expect(enrollment.uncovered(enrollmentTable, ENROLLMENT_REFUSALS)).toEqual({ rows: [], codes: [] });
  });
});
