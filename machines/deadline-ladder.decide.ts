/**
 * What a command does to a Deadline Ladder, decided once, from the machine:
 * the event the actor is sent, or the refusal (409 for a ladder that cannot
 * take it, with the fix). Whether the ladder is closed is the machine's
 * `status`, whether it stands at the terminal rung its state tag; the
 * windows and counts are its context. Pure.
 */
import type { SnapshotFrom } from 'xstate';
import type { Refusal } from '../src/domain/refusal.ts';
import { refusal } from '../src/domain/refusals.ts';
import { ACK_WINDOW_DAYS, ackWindow, deadlineLadderMachine, TERMINAL_OUTCOMES, TERMINAL_RUNG_DAYS, TERMINAL_RUNG_TAG, type LadderEvent, type TerminalOutcome } from './deadline-ladder.ts';

type Snapshot = SnapshotFrom<typeof deadlineLadderMachine>;

export type LadderDecision = { send: LadderEvent } | { refuse: Refusal };

/** Is the ladder closed for good (satisfied once, or resolved at its terminal rung)? */
export const isResolved = (snapshot: Snapshot): boolean => snapshot.status === 'done';

/** Does the count stand at the terminal rung? */
export const atTerminalRung = (snapshot: Snapshot): boolean => snapshot.hasTag(TERMINAL_RUNG_TAG);

/** A resolved ladder is forever: every further write is 409. */
function resolvedRefusal(snapshot: Snapshot): Refusal | null {
  if (!isResolved(snapshot)) return null;
  const { assetId, resolution } = snapshot.context;
  const how = resolution?.kind === 'terminal_rung' ? `at the terminal rung (${resolution.outcome})` : `by evidence ${resolution?.kind === 'satisfied' ? resolution.evidenceRef : ''}`.trim();
  return refusal('LADDER_RESOLVED', { assetId, how }, { assetId, resolution });
}

const decided = (snapshot: Snapshot, event: LadderEvent, refused: Refusal | null = null): LadderDecision => {
  const stop = resolvedRefusal(snapshot) ?? refused;
  return stop ? { refuse: stop } : { send: event };
};

export function decideTick(snapshot: Snapshot, days: number): LadderDecision {
  const { assetId, days: left } = snapshot.context;
  const stop = atTerminalRung(snapshot)
    ? refusal('TICK_REFUSED', { assetId, outcomes: TERMINAL_OUTCOMES, terminalDays: TERMINAL_RUNG_DAYS }, { assetId, daysUntilDeadline: TERMINAL_RUNG_DAYS })
    : days > left
      ? refusal('TICK_REFUSED', { assetId, days, left }, { assetId, daysUntilDeadline: left })
      : null;
  return decided(snapshot, { type: 'TICK', days }, stop);
}

/** The daily human acknowledgment, owed from 7 days to 1 day remaining, once a day. */
export function decideAck(snapshot: Snapshot, actor: string): LadderDecision {
  const { assetId, days, ackedToday, acks } = snapshot.context;
  const stop = !ackWindow(days)
    ? refusal('NO_ACK_DUE', { assetId, days, window: ACK_WINDOW_DAYS }, { assetId, daysUntilDeadline: days })
    : ackedToday
      ? refusal('NO_ACK_DUE', { assetId, days, by: acks[acks.length - 1].actor }, { assetId, daysUntilDeadline: days })
      : null;
  return decided(snapshot, { type: 'ACK', actor }, stop);
}

export const decideMonitor = (snapshot: Snapshot, signerId: string): LadderDecision => decided(snapshot, { type: 'MONITOR', signerId });

export const decideSatisfy = (snapshot: Snapshot, evidenceRef: string): LadderDecision => decided(snapshot, { type: 'SATISFY', evidenceRef });

/** At the terminal rung, one of the four outcomes closes the ladder for good. */
export function decideResolve(snapshot: Snapshot, outcome: TerminalOutcome): LadderDecision {
  const { assetId, days } = snapshot.context;
  const stop = atTerminalRung(snapshot)
    ? null
    : refusal('NOT_AT_TERMINAL_RUNG', { assetId, days, terminalDays: TERMINAL_RUNG_DAYS }, { assetId, daysUntilDeadline: days });
  return decided(snapshot, { type: 'RESOLVE', outcome }, stop);
}
