/**
 * The Deadline Ladder machine as a pure decider (given a ladder, when an
 * event, then this fact and this state), its rung arithmetic, and the rules
 * table the ladders open from.
 */
import { describe, expect, it } from 'vitest';
import { initialTransition, transition, type AnyMachineSnapshot } from 'xstate';
import { deadlineLadderMachine, rungsCrossed, TERMINAL_OUTCOMES, type LadderEvent, type LadderInput } from '../machines/deadline-ladder.ts';
import { ACK_DUE_FIXTURE_DAYS, LADDER_RULES, ladderRuleFor, NOTICE_EVE_FIXTURE_DAYS } from '../src/domain/ladder-rules.ts';
import { FIXTURE } from '../src/domain/fixtures.ts';
import { emittedFacts } from './helpers/facts.ts';
import { MATTER_TYPES } from '../src/domain/matter-types.ts';

type Snap = ReturnType<typeof initialTransition<typeof deadlineLadderMachine>>[0];

const open = (input: Partial<LadderInput> = {}) => initialTransition(deadlineLadderMachine, { assetId: 'as_test', daysUntilDeadline: 31, recurEveryDays: null, ...input })[0];

/** Sends events in order; every one must be accepted. Returns the snapshot and the facts emitted. */
function given(snapshot: Snap, ...events: LadderEvent[]) {
  const facts: Array<{ kind: string; actor?: string; data: Record<string, unknown> }> = [];
  for (const event of events) {
    expect((snapshot as AnyMachineSnapshot).can(event), `${JSON.stringify(event)} from ${JSON.stringify(snapshot.value)}`).toBe(true);
    const [next, actions] = transition(deadlineLadderMachine, snapshot, event);
    facts.push(...emittedFacts(actions as never));
    snapshot = next;
  }
  return { snapshot, facts };
}

const refuses = (snapshot: Snap, event: LadderEvent) => !(snapshot as AnyMachineSnapshot).can(event);

describe('rung arithmetic', () => {
  it('fires the notice once, on the tick that crosses 30 from above', () => {
    expect(rungsCrossed(31, 30, false)).toEqual([{ rung: 'notice', atDaysRemaining: 30 }]);
    expect(rungsCrossed(45, 12, false)).toEqual([{ rung: 'notice', atDaysRemaining: 30 }]);
    expect(rungsCrossed(30, 29, false)).toEqual([]);
    expect(rungsCrossed(60, 31, false)).toEqual([]);
  });

  it('raises an ack_missed for each day of the window that passed without an ack', () => {
    expect(rungsCrossed(10, 5, false)).toEqual([
      { rung: 'ack_missed', atDaysRemaining: 7 },
      { rung: 'ack_missed', atDaysRemaining: 6 },
      { rung: 'ack_due', atDaysRemaining: 5 },
    ]);
    // Today's ack was given: leaving today is not a miss.
    expect(rungsCrossed(7, 6, true)).toEqual([{ rung: 'ack_due', atDaysRemaining: 6 }]);
    expect(rungsCrossed(7, 6, false)).toEqual([{ rung: 'ack_missed', atDaysRemaining: 7 }, { rung: 'ack_due', atDaysRemaining: 6 }]);
    expect(rungsCrossed(8, 7, false)).toEqual([{ rung: 'ack_due', atDaysRemaining: 7 }]);
  });

  it('fires the terminal rung at 0, after the misses of the days that passed', () => {
    expect(rungsCrossed(3, 0, true)).toEqual([
      { rung: 'ack_missed', atDaysRemaining: 2 },
      { rung: 'ack_missed', atDaysRemaining: 1 },
      { rung: 'terminal', atDaysRemaining: 0 },
    ]);
    expect(rungsCrossed(40, 0, false).map((r) => `${r.rung}@${r.atDaysRemaining}`)).toEqual([
      'notice@30', 'ack_missed@7', 'ack_missed@6', 'ack_missed@5', 'ack_missed@4', 'ack_missed@3', 'ack_missed@2', 'ack_missed@1', 'terminal@0',
    ]);
  });
});

describe('the ladder machine', () => {
  it('opens vacant, counting, with the input length and no ack owed above the window', () => {
    const s = open({ daysUntilDeadline: 31 });
    expect(s.value).toEqual({ open: 'counting' });
    expect(s.context).toMatchObject({ days: 31, owner: null, ackedToday: false, occurrence: 1, acks: [], satisfied: [], resolution: null });
  });

  it('moves only by ticks, one fact per tick carrying the rungs it crossed', () => {
    const { snapshot, facts } = given(open(), { type: 'TICK', days: 1 });
    expect(snapshot.context.days).toBe(30);
    expect(facts).toHaveLength(1);
    expect(facts[0]).toMatchObject({ kind: 'ladder.ticked', data: { days: 1, from: 31, to: 30, rungs: [{ rung: 'notice', atDaysRemaining: 30 }] } });
  });

  it('refuses a tick that would pass the deadline, and any tick at the terminal rung', () => {
    const s = open({ daysUntilDeadline: 5 });
    expect(refuses(s, { type: 'TICK', days: 6 })).toBe(true);
    expect(refuses(s, { type: 'TICK', days: 0 })).toBe(true);
    expect(refuses(s, { type: 'TICK', days: 1.5 })).toBe(true);
    const { snapshot } = given(s, { type: 'TICK', days: 5 });
    expect(snapshot.value).toEqual({ open: 'terminalRung' });
    expect(refuses(snapshot, { type: 'TICK', days: 1 })).toBe(true);
  });

  it('takes one named ack per day inside the window, and only there', () => {
    expect(refuses(open({ daysUntilDeadline: 8 }), { type: 'ACK', actor: 'Dana' })).toBe(true);
    const s = open({ daysUntilDeadline: 7 });
    expect(refuses(s, { type: 'ACK', actor: '  ' })).toBe(true);
    const { snapshot, facts } = given(s, { type: 'ACK', actor: 'Dana' });
    expect(facts[0]).toMatchObject({ kind: 'ladder.acked', actor: 'Dana', data: { atDaysRemaining: 7 } });
    expect(refuses(snapshot, { type: 'ACK', actor: 'Dana' })).toBe(true);
    const next = given(snapshot, { type: 'TICK', days: 1 }).snapshot;
    expect(refuses(next, { type: 'ACK', actor: 'Dana' })).toBe(false);
    const atZero = given(next, { type: 'TICK', days: 6 }).snapshot;
    expect(refuses(atZero, { type: 'ACK', actor: 'Dana' })).toBe(true);
  });

  it('clears vacancy when a monitoring owner is named, and hands over to another', () => {
    const { snapshot, facts } = given(open(), { type: 'MONITOR', signerId: 'platform' }, { type: 'MONITOR', signerId: FIXTURE.eligibleSigner });
    expect(snapshot.context.owner).toBe(FIXTURE.eligibleSigner);
    expect(facts.map((f) => f.data)).toEqual([{ signerId: 'platform', previous: null }, { signerId: FIXTURE.eligibleSigner, previous: 'platform' }]);
    expect(refuses(open(), { type: 'MONITOR', signerId: ' ' })).toBe(true);
  });

  it('closes a one-shot ladder forever on evidence', () => {
    const { snapshot } = given(open({ daysUntilDeadline: 12 }), { type: 'SATISFY', evidenceRef: 'receipt-1' });
    expect(snapshot.value).toBe('resolved');
    expect(snapshot.status).toBe('done');
    expect(snapshot.context.resolution).toEqual({ kind: 'satisfied', evidenceRef: 'receipt-1', occurrence: 1, atDaysRemaining: 12 });
    expect(refuses(open(), { type: 'SATISFY', evidenceRef: '' })).toBe(true);
  });

  it('rolls a recurring ladder forward one cadence on evidence, never closing it', () => {
    const s = open({ daysUntilDeadline: 3, recurEveryDays: 365 });
    const { snapshot, facts } = given(s, { type: 'SATISFY', evidenceRef: 'fee-paid-1' }, { type: 'TICK', days: 368 }, { type: 'SATISFY', evidenceRef: 'fee-paid-2' });
    expect(snapshot.value).toEqual({ open: 'counting' });
    expect(snapshot.context.days).toBe(365);
    expect(snapshot.context.occurrence).toBe(3);
    expect(snapshot.context.satisfied).toEqual([
      { occurrence: 1, kind: 'satisfied', evidenceRef: 'fee-paid-1', atDaysRemaining: 3 },
      { occurrence: 2, kind: 'satisfied', evidenceRef: 'fee-paid-2', atDaysRemaining: 0 },
    ]);
    expect(facts.map((f) => f.data.closes ?? f.kind)).toEqual([false, 'ladder.ticked', false]);
  });

  it('resolves only at the terminal rung, with a listed outcome, and then refuses everything', () => {
    const s = open({ daysUntilDeadline: 2, recurEveryDays: 30 });
    expect(refuses(s, { type: 'RESOLVE', outcome: 'clientNotice' })).toBe(true);
    const atZero = given(s, { type: 'TICK', days: 2 }).snapshot;
    expect(refuses(atZero, { type: 'RESOLVE', outcome: 'settle' as never })).toBe(true);
    for (const outcome of TERMINAL_OUTCOMES) {
      const { snapshot } = given(atZero, { type: 'RESOLVE', outcome });
      expect(snapshot.context.resolution).toEqual({ kind: 'terminal_rung', outcome, occurrence: 1 });
      const every: LadderEvent[] = [{ type: 'TICK', days: 1 }, { type: 'ACK', actor: 'Dana' }, { type: 'MONITOR', signerId: 'platform' }, { type: 'SATISFY', evidenceRef: 'late' }, { type: 'RESOLVE', outcome }];
      expect(every.filter((e) => !refuses(snapshot, e))).toEqual([]);
    }
  });
});

describe('the ladder rules table', () => {
  it('gives every ratified matter type a ladder; only patent_maintenance recurs', () => {
    expect(Object.keys(LADDER_RULES).sort()).toEqual([...MATTER_TYPES].sort());
    for (const type of MATTER_TYPES) {
      const rule = LADDER_RULES[type];
      expect(rule.daysUntilDeadline, type).toBeGreaterThan(30);
      expect(rule.recurEveryDays !== null, type).toBe(type === 'patent_maintenance');
    }
  });

  it('starts the fixture Assets where the fixtures listing promises, keeping the cadence', () => {
    expect(ladderRuleFor('patent_provisional', `${FIXTURE.ackDuePrefix} widget`)).toMatchObject({ daysUntilDeadline: ACK_DUE_FIXTURE_DAYS, recurEveryDays: null, fixture: 'ack-due' });
    expect(ACK_DUE_FIXTURE_DAYS).toBeGreaterThanOrEqual(1);
    expect(ACK_DUE_FIXTURE_DAYS).toBeLessThanOrEqual(7);
    expect(ladderRuleFor('patent_maintenance', `${FIXTURE.noticeEvePrefix} patent`)).toMatchObject({ daysUntilDeadline: NOTICE_EVE_FIXTURE_DAYS, recurEveryDays: LADDER_RULES.patent_maintenance.recurEveryDays, fixture: 'notice-eve' });
    expect(NOTICE_EVE_FIXTURE_DAYS).toBe(31);
    expect(ladderRuleFor('demand_letter', 'a title that mentions [fixture:ack-due] later')).toMatchObject({ daysUntilDeadline: LADDER_RULES.demand_letter.daysUntilDeadline, fixture: null });
  });
});
