/**
 * What a command does to a Deadline Ladder, decided once, from the machine:
 * the event the actor is sent, or the refusal (409 for a ladder that cannot
 * take it, with the fix). Whether the ladder is closed is the machine's
 * `status`, whether it stands at the terminal rung its state tag; the
 * windows and counts are its context. Pure.
 */
import type { SnapshotFrom } from 'xstate';
import { refuse, type Refusal } from '../src/domain/refusal.ts';
import { ACK_WINDOW_DAYS, ackWindow, deadlineLadderMachine, TERMINAL_OUTCOMES, TERMINAL_RUNG_DAYS, TERMINAL_RUNG_TAG, type LadderEvent, type TerminalOutcome } from './deadline-ladder.ts';

type Snapshot = SnapshotFrom<typeof deadlineLadderMachine>;

export type LadderDecision = { send: LadderEvent } | { refuse: Refusal };

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Is the ladder closed for good (satisfied once, or resolved at its terminal rung)? */
export const isResolved = (snapshot: Snapshot): boolean => snapshot.status === 'done';

/** Does the count stand at the terminal rung? */
export const atTerminalRung = (snapshot: Snapshot): boolean => snapshot.hasTag(TERMINAL_RUNG_TAG);

/** A resolved ladder is forever: every further write is 409. */
function resolvedRefusal(snapshot: Snapshot): Refusal | null {
  if (!isResolved(snapshot)) return null;
  const { assetId, resolution } = snapshot.context;
  const how = resolution?.kind === 'terminal_rung' ? `at the terminal rung (${resolution.outcome})` : `by evidence ${resolution?.kind === 'satisfied' ? resolution.evidenceRef : ''}`.trim();
  return refuse.conflict('LADDER_RESOLVED', `the ladder of Asset ${assetId} is already closed, resolved ${how}: a resolved ladder is forever`, { assetId, resolution });
}

const decided = (snapshot: Snapshot, event: LadderEvent, refusal: Refusal | null = null): LadderDecision => {
  const stop = resolvedRefusal(snapshot) ?? refusal;
  return stop ? { refuse: stop } : { send: event };
};

export function decideTick(snapshot: Snapshot, days: number): LadderDecision {
  const { assetId, days: left } = snapshot.context;
  const refusal = atTerminalRung(snapshot)
    ? refuse.conflict('TICK_REFUSED', `the ladder of Asset ${assetId} is at the terminal rung (${TERMINAL_RUNG_DAYS} days): it takes no more ticks; satisfy it with evidence or resolve it with one of ${TERMINAL_OUTCOMES.join(', ')}`, { assetId, daysUntilDeadline: TERMINAL_RUNG_DAYS })
    : days > left
      ? refuse.conflict('TICK_REFUSED', `a tick of ${plural(days, 'day')} would pass the deadline of Asset ${assetId}: only ${plural(left, 'day')} remain; tick at most ${left}`, { assetId, daysUntilDeadline: left })
      : null;
  return decided(snapshot, { type: 'TICK', days }, refusal);
}

/** The daily human acknowledgment, owed from 7 days to 1 day remaining, once a day. */
export function decideAck(snapshot: Snapshot, actor: string): LadderDecision {
  const { assetId, days, ackedToday, acks } = snapshot.context;
  const refusal = !ackWindow(days)
    ? refuse.conflict('NO_ACK_DUE', `no acknowledgment is due on the ladder of Asset ${assetId}: ${plural(days, 'day')} remain, and acks are owed each day from ${ACK_WINDOW_DAYS} days down to 1 day remaining`, { assetId, daysUntilDeadline: days })
    : ackedToday
      ? refuse.conflict('NO_ACK_DUE', `today's acknowledgment on the ladder of Asset ${assetId} is already given (by ${acks[acks.length - 1].actor} at ${plural(days, 'day')} remaining); the next one is owed after the next tick`, { assetId, daysUntilDeadline: days })
      : null;
  return decided(snapshot, { type: 'ACK', actor }, refusal);
}

export const decideMonitor = (snapshot: Snapshot, signerId: string): LadderDecision => decided(snapshot, { type: 'MONITOR', signerId });

export const decideSatisfy = (snapshot: Snapshot, evidenceRef: string): LadderDecision => decided(snapshot, { type: 'SATISFY', evidenceRef });

/** At the terminal rung, one of the four outcomes closes the ladder for good. */
export function decideResolve(snapshot: Snapshot, outcome: TerminalOutcome): LadderDecision {
  const { assetId, days } = snapshot.context;
  const refusal = atTerminalRung(snapshot)
    ? null
    : refuse.conflict('NOT_AT_TERMINAL_RUNG', `the ladder of Asset ${assetId} is not at the terminal rung: ${plural(days, 'day')} remain; resolve is possible only at ${TERMINAL_RUNG_DAYS} days (tick ${days} to reach it) and evidence closes it sooner (POST /deadlines/${assetId}/satisfy)`, { assetId, daysUntilDeadline: days });
  return decided(snapshot, { type: 'RESOLVE', outcome }, refusal);
}
