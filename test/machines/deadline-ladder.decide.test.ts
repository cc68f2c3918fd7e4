/**
 * The Deadline Ladder's decider, given/when/then: for each command, from
 * each state it meets, the event it sends (which the machine takes) or the
 * refusal it names. Between them the specs take every row of the ladder's
 * transition table and name every refusal the decider can give.
 */
import { describe, expect, it } from 'vitest';
import { decideAck, decideMonitor, decideResolve, decideSatisfy, decideTick, LADDER_REFUSALS } from '../../machines/deadline-ladder.decide.ts';
import { deadlineLadderMachine, TERMINAL_OUTCOMES } from '../../machines/deadline-ladder.ts';
import { deadlineLadderTable } from '../../machines/deadline-ladder.table.ts';
import { specOf } from '../helpers/decider-spec.ts';

const ASSET = 'as_spec';
const ladder = specOf(deadlineLadderMachine, { assetId: ASSET, daysUntilDeadline: 31, recurEveryDays: null }, `ladder:${ASSET}`);
const atTerminalRung = ladder.opened({ daysUntilDeadline: 2 }).given({ type: 'TICK', days: 2 });

describe('tick', () => {
  it('moves the count toward the deadline, the rungs crossed riding in its one fact', () => {
    const ticked = ladder.given().when(decideTick, { days: 1 }).then([{ type: 'TICK', days: 1 }]);
    expect(ticked.value).toEqual({ open: 'counting' });
    expect(ticked.facts).toMatchObject([{ kind: 'ladder.ticked', data: { days: 1, from: 31, to: 30, rungs: [{ rung: 'notice', atDaysRemaining: 30 }] } }]);
  });

  it('lands on the terminal rung with exactly the days left', () => {
    const landed = ladder.opened({ daysUntilDeadline: 5 }).given().when(decideTick, { days: 5 }).then([{ type: 'TICK', days: 5 }]);
    expect(landed.value).toEqual({ open: 'terminalRung' });
  });

  it('refuses a tick past the deadline, any tick at the terminal rung, and a resolved ladder', () => {
    const past = ladder.opened({ daysUntilDeadline: 5 }).given().when(decideTick, { days: 6 }).then('TICK_REFUSED', { assetId: ASSET, days: 6, left: 5 });
    expect(past.toBody()).toMatchObject({ assetId: ASSET, daysUntilDeadline: 5 });
    atTerminalRung.when(decideTick, { days: 1 }).then('TICK_REFUSED', { outcomes: TERMINAL_OUTCOMES, terminalDays: 0 });
    ladder.given({ type: 'SATISFY', evidenceRef: 'receipt-1' }).when(decideTick, { days: 1 }).then('LADDER_RESOLVED', { assetId: ASSET, how: 'by evidence receipt-1' });
  });
});

describe('ack', () => {
  it('takes one named acknowledgment a day inside the window', () => {
    const acked = ladder.opened({ daysUntilDeadline: 7 }).given().when(decideAck, { actor: 'Dana' }).then([{ type: 'ACK', actor: 'Dana' }]);
    expect(acked.facts).toMatchObject([{ kind: 'ladder.acked', actor: 'Dana', data: { atDaysRemaining: 7, occurrence: 1 } }]);
    acked.when(decideAck, { actor: 'Eli' }).then('NO_ACK_DUE', { assetId: ASSET, days: 7, by: 'Dana' });
    acked.and({ type: 'TICK', days: 1 }).when(decideAck, { actor: 'Eli' }).then([{ type: 'ACK', actor: 'Eli' }]);
  });

  it('refuses one outside the window', () => {
    ladder.opened({ daysUntilDeadline: 8 }).given().when(decideAck, { actor: 'Dana' }).then('NO_ACK_DUE', { days: 8, window: 7 });
  });
});

describe('monitor', () => {
  it('names the monitoring owner, and hands over to another', () => {
    const named = ladder.given().when(decideMonitor, { signerId: 'platform' }).then([{ type: 'MONITOR', signerId: 'platform' }]);
    expect(named.when(decideMonitor, { signerId: 'sg_1' }).then([{ type: 'MONITOR', signerId: 'sg_1' }]).facts[0].data).toEqual({ signerId: 'sg_1', previous: 'platform' });
  });
});

describe('satisfy', () => {
  it('closes a one-shot ladder for good, and rolls a recurring one forward one cadence', () => {
    const closed = ladder.opened({ daysUntilDeadline: 12 }).given().when(decideSatisfy, { evidenceRef: 'receipt-1' }).then([{ type: 'SATISFY', evidenceRef: 'receipt-1' }]);
    expect(closed.value).toBe('resolved');
    const rolled = ladder.opened({ daysUntilDeadline: 3, recurEveryDays: 365 }).given().when(decideSatisfy, { evidenceRef: 'fee-paid' }).then([{ type: 'SATISFY', evidenceRef: 'fee-paid' }]);
    expect(rolled.snapshot().context).toMatchObject({ days: 368, occurrence: 2 });
    closed.when(decideSatisfy, { evidenceRef: 'late' }).then('LADDER_RESOLVED');
  });
});

describe('resolve', () => {
  it('closes the ladder at the terminal rung with a listed outcome, naming it once resolved', () => {
    const resolved = atTerminalRung.when(decideResolve, { outcome: 'clientNotice' }).then([{ type: 'RESOLVE', outcome: 'clientNotice' }]);
    expect(resolved.snapshot().context.resolution).toEqual({ kind: 'terminal_rung', outcome: 'clientNotice', occurrence: 1 });
    resolved.when(decideMonitor, { signerId: 'platform' }).then('LADDER_RESOLVED', { how: 'at the terminal rung (clientNotice)' });
  });

  it('is refused before the terminal rung', () => {
    ladder.given().when(decideResolve, { outcome: 'proSeHandoff' }).then('NOT_AT_TERMINAL_RUNG', { assetId: ASSET, days: 31, terminalDays: 0 });
  });
});

describe('the ladder\'s specs', () => {
  it('take every row of the transition table and name every refusal the decider gives', () => {
    expect(ladder.uncovered(deadlineLadderTable, LADDER_REFUSALS)).toEqual({ rows: [], codes: [] });
  });
});
