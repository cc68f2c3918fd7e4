/**
 * The Enrollment machine's model adapter: AMEND goes through
 * `POST /firms/{id}/enrollments` (a live member's further grants), REVOKE
 * through `POST /firms/{id}/enrollments/{memberId}/revoke`. After every step
 * the enrollments list, the derived roster, the firm's counts and the firm's
 * tail must show exactly what the machine's snapshot and emitted facts say.
 *
 * Variants: the eligible and the suspended fixture member enrolling on the
 * roster, and the eligible member enrolling with remittance only (off the
 * roster until an amendment grants it). Each path runs in a fresh firm.
 */
import type { SnapshotFrom } from 'xstate';
import { ENROLLMENT_GRANTS, enrollmentMachine, enrollmentStatus, type EnrollmentEvent, type Grant } from '../../machines/enrollment.ts';
import { deriveRosterRow, memberOf } from '../../src/domain/firm-members.ts';
import { call, type TestApp } from '../helpers/app.ts';
import { assertEqual, doorAnswer } from './compare.ts';
import type { ModelAdapter, Trace } from './runner.ts';

type Enrollment = typeof enrollmentMachine;
type Snap = SnapshotFrom<Enrollment>;

export interface EnrollmentHandle {
  firm: string;
  memberId: string;
}

const input = (memberId: string, grants: Grant[]) => ({ firmId: '(model)', memberId, grants });

/** Every door's event, legal and illegal: each single grant, all of them, an unknown grant, none; and revocation. */
export function enrollmentEvents(s: Snap): EnrollmentEvent[] {
  const executedBy = s.context.memberId;
  if (s.status === 'done') return [{ type: 'REVOKE', executedBy }];
  return [
    ...ENROLLMENT_GRANTS.map((g) => ({ type: 'AMEND' as const, grants: [g], executedBy })),
    { type: 'AMEND', grants: [...ENROLLMENT_GRANTS], executedBy },
    { type: 'AMEND', grants: ['signing' as Grant], executedBy },
    { type: 'AMEND', grants: [], executedBy },
    { type: 'REVOKE', executedBy },
  ];
}

export const enrollmentKey = (s: Snap) => JSON.stringify([s.value, s.context.grants]);

async function send(app: TestApp, handle: EnrollmentHandle, event: EnrollmentEvent) {
  const res =
    event.type === 'AMEND'
      ? await call(app, 'POST', `${handle.firm}/enrollments`, { memberId: handle.memberId, grants: event.grants })
      : await call(app, 'POST', `${handle.firm}/enrollments/${handle.memberId}/revoke`);
  const answer = doorAnswer(res);
  if (!answer.accepted && ![409, 422].includes(res.status)) throw new Error(`an enrollment door refuses with 409 or 422 here, got ${res.status} ${res.raw}`);
  if (answer.accepted && event.type === 'AMEND' && (res.status !== 201 || res.body.act !== 'amended')) throw new Error(`an accepted amendment answers 201 act "amended", got ${res.status} ${res.raw}`);
  return answer;
}

async function check(app: TestApp, handle: EnrollmentHandle, expected: Snap, trace: Trace<Enrollment>) {
  const status = enrollmentStatus(expected.value);
  const live = status !== 'revoked';
  const grants = expected.context.grants;
  const facts = memberOf(handle.memberId)!.facts;
  const derived = deriveRosterRow(handle.memberId, status, grants, facts);

  const list = await call(app, 'GET', `${handle.firm}/enrollments`);
  if (list.status !== 200 || list.body.results?.length !== 1) throw new Error(`GET enrollments answered ${list.status} ${list.raw}`);
  const row = list.body.results[0];
  assertEqual(
    { memberId: row.memberId, status: row.status, grants: row.grants, eligible: row.eligible, failingPredicate: row.failingPredicate ?? null, ceremonies: row.ceremonies.map((c: { instrument: string }) => c.instrument) },
    { memberId: handle.memberId, status, grants: live ? grants : [], eligible: derived.eligible, failingPredicate: derived.failingPredicate ?? null, ceremonies: ['enrollment', ...trace.emitted.map((f) => f.data.instrument)] },
    'enrollment row',
  );

  const roster = await call(app, 'GET', `${handle.firm}/roster`);
  const onRoster = live && grants.includes('roster');
  assertEqual({ type: roster.body.type, results: roster.body.results, blanked: roster.body.blanked }, { type: onRoster ? 'OK' : 'EMPTY', results: onRoster ? [derived] : [], blanked: !live && grants.includes('roster') ? 1 : 0 }, 'roster');
  if (roster.body.probe?.registerConsulted !== false) throw new Error('every roster read shows the declared synthetic probe act');

  const firm = await call(app, 'GET', handle.firm);
  assertEqual(firm.body.firm.enrollments, { enrolled: live ? 1 : 0, revoked: live ? 0 : 1 }, 'firm enrollment counts');

  const tail = await call(app, 'GET', `${handle.firm}/events?limit=500`);
  const kinds = (tail.body.results as Array<{ kind: string; actor?: string }>).map((e) => `${e.kind}:${e.actor ?? ''}`);
  assertEqual(kinds, ['firm.opened:', `enrollment.opened:${handle.memberId}`, ...trace.emitted.map((f) => `${f.kind}:${f.actor}`)], 'firm tail');
}

export const enrollmentAdapter: ModelAdapter<Enrollment, EnrollmentHandle> = {
  name: 'enrollment',
  machine: enrollmentMachine,
  variants: [
    { name: 'eligible/roster', input: input('mb_fixture_eligible', ['roster']) },
    { name: 'suspended/roster', input: input('mb_fixture_suspended', ['roster']) },
    { name: 'eligible/remittance-only', input: input('mb_fixture_eligible', ['remittance']) },
  ],
  events: enrollmentEvents,
  serializeState: enrollmentKey,
  async open(app, variant) {
    const res = await call(app, 'POST', '/firms');
    if (res.status !== 201) throw new Error(`POST /firms answered ${res.status} ${res.raw}`);
    const firm = `/firms/${res.body.firm.id}`;
    const enrolled = await call(app, 'POST', `${firm}/enrollments`, { memberId: variant.input.memberId, grants: variant.input.grants });
    if (enrolled.status !== 201 || enrolled.body.act !== 'enrolled') throw new Error(`POST enrollments answered ${enrolled.status} ${enrolled.raw}`);
    return { firm, memberId: variant.input.memberId };
  },
  send: (app, handle, event) => send(app, handle, event),
  check,
};
