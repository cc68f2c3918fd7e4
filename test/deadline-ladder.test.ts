/**
 * The Deadline Ladder machine as a pure decider (given a ladder, when an
 * event, then this fact and this state), its rung arithmetic, and the rules
 * table the ladders open from.
 */
import { describe, expect, it } from 'vitest';
import { deadlineLadderMachine, rungsCrossed, TERMINAL_OUTCOMES, type LadderEvent, type LadderInput } from '../machines/deadline-ladder.ts';
import { ACK_DUE_FIXTURE_DAYS, LADDER_RULES, ladderRuleFor, NOTICE_EVE_FIXTURE_DAYS } from '../src/domain/ladder-rules.ts';
import { FIXTURE } from '../src/domain/fixtures.ts';
import { specOf } from './helpers/decider-spec.ts';
import { MATTER_TYPES } from '../src/domain/matter-types.ts';

const ladder = specOf(deadlineLadderMachine, { assetId: 'as_test', daysUntilDeadline: 31, recurEveryDays: null }, 'ladder:as_test');
const open = (input: Partial<LadderInput> = {}) => ladder.opened(input).given();

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
    expect(s.snapshot().context).toMatchObject({ days: 31, owner: null, ackedToday: false, occurrence: 1, acks: [], satisfied: [], resolution: null });
  });

  it('moves only by ticks, one fact per tick carrying the rungs it crossed', () => {
    const ticked = open().and({ type: 'TICK', days: 1 });
    expect(ticked.snapshot().context.days).toBe(30);
    expect(ticked.facts).toHaveLength(1);
    expect(ticked.facts[0]).toMatchObject({ kind: 'ladder.ticked', data: { days: 1, from: 31, to: 30, rungs: [{ rung: 'notice', atDaysRemaining: 30 }] } });
  });

  it('refuses a tick that would pass the deadline, and any tick at the terminal rung', () => {
    const s = open({ daysUntilDeadline: 5 }).refuses({ type: 'TICK', days: 6 }).refuses({ type: 'TICK', days: 0 }).refuses({ type: 'TICK', days: 1.5 });
    const landed = s.and({ type: 'TICK', days: 5 });
    expect(landed.value).toEqual({ open: 'terminalRung' });
    landed.refuses({ type: 'TICK', days: 1 });
  });

  it('takes one named ack per day inside the window, and only there', () => {
    open({ daysUntilDeadline: 8 }).refuses({ type: 'ACK', actor: 'Dana' });
    const acked = open({ daysUntilDeadline: 7 }).refuses({ type: 'ACK', actor: '  ' }).and({ type: 'ACK', actor: 'Dana' });
    expect(acked.facts[0]).toMatchObject({ kind: 'ladder.acked', actor: 'Dana', data: { atDaysRemaining: 7 } });
    const next = acked.refuses({ type: 'ACK', actor: 'Dana' }).and({ type: 'TICK', days: 1 });
    next.and({ type: 'ACK', actor: 'Dana' });
    next.and({ type: 'TICK', days: 6 }).refuses({ type: 'ACK', actor: 'Dana' });
  });

  it('clears vacancy when a monitoring owner is named, and hands over to another', () => {
    const handed = open().and({ type: 'MONITOR', signerId: 'platform' }, { type: 'MONITOR', signerId: FIXTURE.eligibleSigner });
    expect(handed.snapshot().context.owner).toBe(FIXTURE.eligibleSigner);
    expect(handed.facts.map((f) => f.data)).toEqual([{ signerId: 'platform', previous: null }, { signerId: FIXTURE.eligibleSigner, previous: 'platform' }]);
    open().refuses({ type: 'MONITOR', signerId: ' ' });
  });

  it('closes a one-shot ladder forever on evidence', () => {
    const closed = open({ daysUntilDeadline: 12 }).and({ type: 'SATISFY', evidenceRef: 'receipt-1' });
    expect(closed.value).toBe('resolved');
    expect(closed.snapshot().status).toBe('done');
    expect(closed.snapshot().context.resolution).toEqual({ kind: 'satisfied', evidenceRef: 'receipt-1', occurrence: 1, atDaysRemaining: 12 });
    open().refuses({ type: 'SATISFY', evidenceRef: '' });
  });

  it('rolls a recurring ladder forward one cadence on evidence, never closing it', () => {
    const rolled = open({ daysUntilDeadline: 3, recurEveryDays: 365 }).and({ type: 'SATISFY', evidenceRef: 'fee-paid-1' }, { type: 'TICK', days: 368 }, { type: 'SATISFY', evidenceRef: 'fee-paid-2' });
    expect(rolled.value).toEqual({ open: 'counting' });
    const context = rolled.snapshot().context;
    expect(context.days).toBe(365);
    expect(context.occurrence).toBe(3);
    expect(context.satisfied).toEqual([
      { occurrence: 1, kind: 'satisfied', evidenceRef: 'fee-paid-1', atDaysRemaining: 3 },
      { occurrence: 2, kind: 'satisfied', evidenceRef: 'fee-paid-2', atDaysRemaining: 0 },
    ]);
    expect(rolled.facts.map((f) => f.data.closes ?? f.kind)).toEqual([false, 'ladder.ticked', false]);
  });

  it('resolves only at the terminal rung, with a listed outcome, and then refuses everything', () => {
    const atZero = open({ daysUntilDeadline: 2, recurEveryDays: 30 }).refuses({ type: 'RESOLVE', outcome: 'clientNotice' }).and({ type: 'TICK', days: 2 });
    atZero.refuses({ type: 'RESOLVE', outcome: 'settle' as never });
    for (const outcome of TERMINAL_OUTCOMES) {
      const resolved = atZero.and({ type: 'RESOLVE', outcome });
      expect(resolved.snapshot().context.resolution).toEqual({ kind: 'terminal_rung', outcome, occurrence: 1 });
      const every: LadderEvent[] = [{ type: 'TICK', days: 1 }, { type: 'ACK', actor: 'Dana' }, { type: 'MONITOR', signerId: 'platform' }, { type: 'SATISFY', evidenceRef: 'late' }, { type: 'RESOLVE', outcome }];
      for (const event of every) resolved.refuses(event);
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
