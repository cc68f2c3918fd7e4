/** The Enrollment machine, pure: its table, its facts, its refusals, and replay. */
import { describe, expect, it } from 'vitest';
import { createActor, initialTransition, transition } from 'xstate';
import { finalStates, machineEdges } from '../machines/edges.ts';
import { enrollmentMachine, enrollmentStatus, type EnrollmentEvent } from '../machines/enrollment.ts';
import { enrollmentFinalStates, enrollmentTable } from '../machines/enrollment.table.ts';
import { deriveRosterRow, FIRM_MEMBERS } from '../src/domain/firm-members.ts';

const input = { firmId: 'fm_a', memberId: 'mb_fixture_eligible', grants: ['roster' as const] };
const sortEdges = <T extends object>(edges: T[]) => [...edges].map((e) => JSON.stringify(e)).sort();

describe('enrollment machine', () => {
  it('has exactly the edges of its transition table, and revoked is its only final state', () => {
    expect(sortEdges(machineEdges(enrollmentMachine))).toEqual(sortEdges([...enrollmentTable]));
    expect(finalStates(enrollmentMachine)).toEqual([...enrollmentFinalStates]);
  });

  it('walks enrolled → amended → revoked, emitting one ceremony fact per act', () => {
    const actor = createActor(enrollmentMachine, { input });
    const facts: Array<{ kind: string; data: Record<string, unknown> }> = [];
    actor.on('fact', (f) => facts.push(f));
    actor.start();
    expect(enrollmentStatus(actor.getSnapshot().value)).toBe('enrolled');
    actor.send({ type: 'AMEND', grants: ['remittance', 'roster'], executedBy: 'mb_fixture_eligible' });
    expect(enrollmentStatus(actor.getSnapshot().value)).toBe('amended');
    expect(actor.getSnapshot().context.grants).toEqual(['roster', 'remittance']);
    actor.send({ type: 'AMEND', grants: ['routing'], executedBy: 'mb_fixture_eligible' });
    expect(actor.getSnapshot().context.grants).toEqual(['roster', 'remittance', 'routing']);
    actor.send({ type: 'REVOKE', executedBy: 'mb_fixture_eligible' });
    expect(enrollmentStatus(actor.getSnapshot().value)).toBe('revoked');
    expect(actor.getSnapshot().status).toBe('done');
    expect(facts.map((f) => f.kind)).toEqual(['enrollment.amended', 'enrollment.amended', 'enrollment.revoked']);
    expect(facts[0].data).toMatchObject({ instrument: 'amendment', granted: ['remittance'], grants: ['roster', 'remittance'], executedBy: 'mb_fixture_eligible' });
    expect(facts[2].data).toMatchObject({ instrument: 'revocation', revoked: ['roster', 'remittance', 'routing'] });
  });

  it('refuses an amendment that adds nothing or names an unknown grant, and anything once revoked', () => {
    let [s] = initialTransition(enrollmentMachine, input);
    const can = (e: EnrollmentEvent) => s.can(e);
    expect(can({ type: 'AMEND', grants: ['roster'], executedBy: 'm' })).toBe(false);
    expect(can({ type: 'AMEND', grants: [], executedBy: 'm' })).toBe(false);
    expect(can({ type: 'AMEND', grants: ['signing' as never], executedBy: 'm' })).toBe(false);
    expect(can({ type: 'AMEND', grants: ['roster', 'signing' as never], executedBy: 'm' })).toBe(false);
    expect(can({ type: 'AMEND', grants: ['routing'], executedBy: 'm' })).toBe(true);
    [s] = transition(enrollmentMachine, s, { type: 'REVOKE', executedBy: 'm' });
    expect(can({ type: 'REVOKE', executedBy: 'm' })).toBe(false);
    expect(can({ type: 'AMEND', grants: ['routing'], executedBy: 'm' })).toBe(false);
  });
});

describe('roster derivation', () => {
  const facts = { credentialLive: true, standingFresh: true, coverageInForce: true };
  it('is eligible only when the Enrollment is live and every binary fact holds, naming the first failure', () => {
    expect(deriveRosterRow('m', 'enrolled', ['roster'], facts)).toMatchObject({ eligible: true });
    expect(deriveRosterRow('m', 'enrolled', ['roster'], facts).failingPredicate).toBeUndefined();
    expect(deriveRosterRow('m', 'amended', ['roster'], { ...facts, credentialLive: false })).toMatchObject({ eligible: false, failingPredicate: 'credential' });
    expect(deriveRosterRow('m', 'amended', ['roster'], { ...facts, standingFresh: false })).toMatchObject({ eligible: false, failingPredicate: 'standing' });
    expect(deriveRosterRow('m', 'enrolled', ['roster'], { ...facts, coverageInForce: false })).toMatchObject({ eligible: false, failingPredicate: 'coverage' });
    expect(deriveRosterRow('m', 'revoked', ['roster'], facts)).toMatchObject({ eligible: false, failingPredicate: 'enrollment' });
  });

  it('the fixture members derive as the listing promises', () => {
    const [eligible, suspended, revoking] = FIRM_MEMBERS;
    expect(deriveRosterRow(eligible.memberId, 'enrolled', ['roster'], eligible.facts).eligible).toBe(true);
    expect(deriveRosterRow(suspended.memberId, 'enrolled', ['roster'], suspended.facts)).toMatchObject({ eligible: false, failingPredicate: 'standing' });
    expect(revoking.revokesAfterEnrolling).toBe(true);
  });
});
