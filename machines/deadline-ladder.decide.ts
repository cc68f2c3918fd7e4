/**
 * What each command does to a Deadline Ladder, decided once, from the
 * machine: the event the actor is sent, or the refusal (409 for a ladder
 * that cannot take it, with the fix). Whether the ladder is closed is the
 * machine's `status`, whether it stands at the terminal rung its state tag;
 * the windows and counts are its context. Pure.
 */
import type { SnapshotFrom } from 'xstate';
import { refuses, sends, type Decision, type Subject } from './decision.ts';
import { ACK_WINDOW_DAYS, ackWindow, deadlineLadderMachine, TERMINAL_OUTCOMES, TERMINAL_RUNG_DAYS, TERMINAL_RUNG_TAG, type LadderEvent, type TerminalOutcome } from './deadline-ladder.ts';

type Snapshot = SnapshotFrom<typeof deadlineLadderMachine>;
type Ladder = Subject<Snapshot>;

/** Every refusal a ladder decider names (the specs cover each). */
export const LADDER_REFUSALS = ['LADDER_RESOLVED', 'TICK_REFUSED', 'NO_ACK_DUE', 'NOT_AT_TERMINAL_RUNG'] as const;

export type LadderDecision = Decision<LadderEvent>;

const refused = refuses<(typeof LADDER_REFUSALS)[number]>;

/** Is the ladder closed for good (satisfied once, or resolved at its terminal rung)? */
export const isResolved = (snapshot: Snapshot): boolean => snapshot.status === 'done';

/** Does the count stand at the terminal rung? */
export const atTerminalRung = (snapshot: Snapshot): boolean => snapshot.hasTag(TERMINAL_RUNG_TAG);

/** A resolved ladder is forever: every further write is 409; else `stop`, when the command has one; else the event. */
function decided(ladder: Ladder, event: LadderEvent, stop: LadderDecision | null = null): LadderDecision {
  const snapshot = ladder.snapshot();
  if (!isResolved(snapshot)) return stop ?? sends(event);
  const { assetId, resolution } = snapshot.context;
  const how = resolution?.kind === 'terminal_rung' ? `at the terminal rung (${resolution.outcome})` : `by evidence ${resolution?.kind === 'satisfied' ? resolution.evidenceRef : ''}`.trim();
  return refused('LADDER_RESOLVED', { assetId, how }, { assetId, resolution });
}

/** An explicit tick of `days` toward the deadline: never past it, and none at the terminal rung. */
export function decideTick(ladder: Ladder, { days }: { days: number }): LadderDecision {
  const snapshot = ladder.snapshot();
  const { assetId, days: left } = snapshot.context;
  const stop = atTerminalRung(snapshot)
    ? refused('TICK_REFUSED', { assetId, outcomes: TERMINAL_OUTCOMES, terminalDays: TERMINAL_RUNG_DAYS }, { assetId, daysUntilDeadline: TERMINAL_RUNG_DAYS })
    : days > left
      ? refused('TICK_REFUSED', { assetId, days, left }, { assetId, daysUntilDeadline: left })
      : null;
  return decided(ladder, { type: 'TICK', days }, stop);
}

/** The daily human acknowledgment, owed from 7 days to 1 day remaining, once a day. */
export function decideAck(ladder: Ladder, { actor }: { actor: string }): LadderDecision {
  const { assetId, days, ackedToday, acks } = ladder.snapshot().context;
  const stop = !ackWindow(days)
    ? refused('NO_ACK_DUE', { assetId, days, window: ACK_WINDOW_DAYS }, { assetId, daysUntilDeadline: days })
    : ackedToday
      ? refused('NO_ACK_DUE', { assetId, days, by: acks[acks.length - 1].actor }, { assetId, daysUntilDeadline: days })
      : null;
  return decided(ladder, { type: 'ACK', actor }, stop);
}

/** Names the monitoring owner, clearing the vacancy alarm. */
export const decideMonitor = (ladder: Ladder, { signerId }: { signerId: string }): LadderDecision => decided(ladder, { type: 'MONITOR', signerId });

/** Evidence closes a one-shot ladder, or rolls a recurring one forward. */
export const decideSatisfy = (ladder: Ladder, { evidenceRef }: { evidenceRef: string }): LadderDecision => decided(ladder, { type: 'SATISFY', evidenceRef });

/** At the terminal rung, one of the four outcomes closes the ladder for good. */
export function decideResolve(ladder: Ladder, { outcome }: { outcome: TerminalOutcome }): LadderDecision {
  const snapshot = ladder.snapshot();
  const { assetId, days } = snapshot.context;
  const stop = atTerminalRung(snapshot) ? null : refused('NOT_AT_TERMINAL_RUNG', { assetId, days, terminalDays: TERMINAL_RUNG_DAYS }, { assetId, daysUntilDeadline: days });
  return decided(ladder, { type: 'RESOLVE', outcome }, stop);
}

/** Every command a ladder takes, by name: what the inspection asks of each. */
export const ladderDecider = { tick: decideTick, ack: decideAck, monitor: decideMonitor, satisfy: decideSatisfy, resolve: decideResolve };
