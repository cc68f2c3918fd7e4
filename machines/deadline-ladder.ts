/**
 * The Deadline Ladder machine: one Asset obligation counting down to its
 * deadline. It encodes the spec's "Deadline ladder moves" table (kept as data
 * in `deadline-ladder.table.ts`, which a test holds equal to this).
 *
 * Pure like the Matter machine: no I/O, no clock, no `after`. The ladder moves
 * only on explicit ticks (`TICK {days}`), never on wall time. Every accepted
 * event emits exactly one fact through `emit`; the rungs a tick crosses travel
 * inside that fact (`data.rungs`) and the engine journals each as its own
 * `reminder.*` tail event next to it, so replaying the journal's causes
 * through `transition()` rebuilds the same snapshot.
 *
 * Rungs: the notice rung at 30 days remaining; a human acknowledgment each day
 * from 7 days to 1 day remaining (a day that passes without one raises an
 * `ack_missed` reminder instead of passing silently); the terminal rung at 0.
 * Closure is by evidence only: `SATISFY` closes a one-shot ladder, rolls a
 * recurring one forward by one cadence; at the terminal rung `RESOLVE` with one
 * of the four outcomes is the only permanent closure of a recurring ladder.
 */
import { assign, emit, enqueueActions, setup } from 'xstate';
import { fact, type EmittedFact } from './fact.ts';

/** Days remaining at which the notice rung fires. */
export const NOTICE_RUNG_DAYS = 30;
/** The daily acknowledgment is required from this many days remaining down to 1. */
export const ACK_WINDOW_DAYS = 7;
/** The terminal rung. */
export const TERMINAL_RUNG_DAYS = 0;

export const TERMINAL_OUTCOMES = ['clientNotice', 'extensionPurchase', 'proSeHandoff', 'outsideCounselHandoff'] as const;
export type TerminalOutcome = (typeof TERMINAL_OUTCOMES)[number];

export const RUNGS = ['notice', 'ack_missed', 'ack_due', 'terminal'] as const;
export type RungName = (typeof RUNGS)[number];
export interface Rung {
  rung: RungName;
  atDaysRemaining: number;
}

export interface LadderInput {
  assetId: string;
  /** Days until the first occurrence's deadline; at least 1. */
  daysUntilDeadline: number;
  /** The cadence of a recurring obligation; null for a one-shot ladder. */
  recurEveryDays: number | null;
}

export interface LadderAck {
  actor: string;
  atDaysRemaining: number;
  occurrence: number;
}

export interface SatisfiedOccurrence {
  occurrence: number;
  kind: 'satisfied';
  evidenceRef: string;
  atDaysRemaining: number;
}

export type LadderResolution =
  | { kind: 'satisfied'; evidenceRef: string; occurrence: number; atDaysRemaining: number }
  | { kind: 'terminal_rung'; outcome: TerminalOutcome; occurrence: number };

export interface LadderContext {
  assetId: string;
  /** Days until the open occurrence's deadline; never below 0. */
  days: number;
  recurEveryDays: number | null;
  /** The named monitoring owner (a Signer id or `platform`); null means vacant. */
  owner: string | null;
  /** Whether today's acknowledgment has been given (reset by every tick). */
  ackedToday: boolean;
  /** 1-based index of the open occurrence; rises each time a recurring ladder rolls. */
  occurrence: number;
  acks: LadderAck[];
  /** Occurrences closed by evidence, oldest first. */
  satisfied: SatisfiedOccurrence[];
  resolution: LadderResolution | null;
}

export type LadderEvent =
  | { type: 'TICK'; days: number }
  | { type: 'ACK'; actor: string }
  | { type: 'MONITOR'; signerId: string }
  | { type: 'SATISFY'; evidenceRef: string }
  | { type: 'RESOLVE'; outcome: TerminalOutcome };

export type LadderEventType = LadderEvent['type'];

type Ev<T extends LadderEventType> = Extract<LadderEvent, { type: T }>;
const present = (s: unknown): s is string => typeof s === 'string' && s.trim() !== '';
const isTickOf = (event: LadderEvent): event is Ev<'TICK'> => event.type === 'TICK' && Number.isInteger(event.days) && event.days >= 1;

/** Whether a human acknowledgment is owed on a day with `days` remaining. */
export const ackWindow = (days: number) => days >= 1 && days <= ACK_WINDOW_DAYS;

/**
 * The rungs a tick from `from` to `to` days remaining crosses, in the order
 * they happen. The days that pass are `from, from-1, ..., to+1`; each of them
 * inside the ack window without an acknowledgment is an `ack_missed`. The
 * notice fires once per crossing of 30 (from above 30 to 30 or below).
 */
export function rungsCrossed(from: number, to: number, ackedToday: boolean): Rung[] {
  const rungs: Rung[] = [];
  if (from > NOTICE_RUNG_DAYS && to <= NOTICE_RUNG_DAYS) rungs.push({ rung: 'notice', atDaysRemaining: NOTICE_RUNG_DAYS });
  for (let day = Math.min(from, ACK_WINDOW_DAYS); day > to && day >= 1; day -= 1) {
    if (day === from && ackedToday) continue;
    rungs.push({ rung: 'ack_missed', atDaysRemaining: day });
  }
  if (ackWindow(to)) rungs.push({ rung: 'ack_due', atDaysRemaining: to });
  if (to === TERMINAL_RUNG_DAYS) rungs.push({ rung: 'terminal', atDaysRemaining: TERMINAL_RUNG_DAYS });
  return rungs;
}

/** The state tag the decider and the view read: the count stands at the terminal rung. */
export const TERMINAL_RUNG_TAG = 'terminal-rung';

/**
 * The Deadline Ladder machine's version, recorded in the opening cause of every stream
 * it opens (`machine: '<id>@<version>'`). Bump it when a change alters how
 * journaled events fold, and follow docs/versioning.md (an upcaster or the
 * old definition kept for the old streams; new recorded journals beside the old).
 */
export const DEADLINE_LADDER_MACHINE_VERSION = 1;

export const deadlineLadderMachine = setup({
  types: {
    context: {} as LadderContext,
    events: {} as LadderEvent,
    input: {} as LadderInput,
    emitted: {} as EmittedFact,
    tags: {} as typeof TERMINAL_RUNG_TAG,
  },
  actions: {
    /** Moves the count down; the rungs crossed ride inside the one fact. */
    tick: enqueueActions(({ context, event, enqueue }) => {
      const { days } = event as Ev<'TICK'>;
      const to = context.days - days;
      const rungs = rungsCrossed(context.days, to, context.ackedToday);
      enqueue.assign({ days: to, ackedToday: false });
      enqueue.emit(
        fact({
          kind: 'ladder.ticked',
          by: 'gate',
          note: `ticked ${days} day${days === 1 ? '' : 's'}: ${to} day${to === 1 ? '' : 's'} until the deadline${rungs.length ? ` (${rungs.map((r) => `${r.rung}@${r.atDaysRemaining}`).join(', ')})` : ''}`,
          data: { days, from: context.days, to, occurrence: context.occurrence, owner: context.owner, rungs },
        }),
      );
    }),
    /** Evidence closes the open occurrence of a recurring ladder and rolls one cadence forward. */
    roll: enqueueActions(({ context, event, enqueue }) => {
      const { evidenceRef } = event as Ev<'SATISFY'>;
      const to = context.days + context.recurEveryDays!;
      enqueue.assign({
        days: to,
        ackedToday: false,
        occurrence: context.occurrence + 1,
        satisfied: [...context.satisfied, { occurrence: context.occurrence, kind: 'satisfied', evidenceRef, atDaysRemaining: context.days }],
      });
      enqueue.emit(
        fact({
          kind: 'ladder.satisfied',
          by: 'gate',
          note: `occurrence ${context.occurrence} satisfied by evidence ${evidenceRef}; the next occurrence is due in ${to} days`,
          data: { evidenceRef, occurrence: context.occurrence, atDaysRemaining: context.days, closes: false, nextOccurrence: context.occurrence + 1, daysUntilDeadline: to },
        }),
      );
    }),
  },
  guards: {
    landsBeforeDeadline: ({ context, event }) => isTickOf(event) && event.days < context.days,
    landsOnTerminalRung: ({ context, event }) => isTickOf(event) && event.days === context.days,
    ackDue: ({ context, event }) => event.type === 'ACK' && present(event.actor) && ackWindow(context.days) && !context.ackedToday,
    signerNamed: ({ event }) => event.type === 'MONITOR' && present(event.signerId),
    oneShotEvidence: ({ context, event }) => event.type === 'SATISFY' && present(event.evidenceRef) && context.recurEveryDays === null,
    recurringEvidence: ({ context, event }) => event.type === 'SATISFY' && present(event.evidenceRef) && context.recurEveryDays !== null,
    outcomeListed: ({ event }) => event.type === 'RESOLVE' && (TERMINAL_OUTCOMES as readonly string[]).includes(event.outcome),
  },
}).createMachine({
  id: 'deadline-ladder',
  context: ({ input }) => ({
    assetId: input.assetId,
    days: input.daysUntilDeadline,
    recurEveryDays: input.recurEveryDays,
    owner: null,
    ackedToday: false,
    occurrence: 1,
    acks: [],
    satisfied: [],
    resolution: null,
  }),
  initial: 'open',
  states: {
    open: {
      initial: 'counting',
      on: {
        // Naming an owner clears vacancy; naming another hands monitoring over.
        MONITOR: {
          guard: 'signerNamed',
          actions: [
            emit(({ context, event }) => fact({ kind: 'ladder.monitored', by: 'gate', note: `monitoring owner named: ${event.signerId}`, data: { signerId: event.signerId, previous: context.owner } })),
            assign({ owner: ({ event }) => event.signerId }),
          ],
        },
        SATISFY: [
          {
            guard: 'oneShotEvidence',
            target: 'resolved',
            actions: [
              emit(({ context, event }) => fact({ kind: 'ladder.satisfied', by: 'gate', note: `obligation satisfied by evidence ${event.evidenceRef}; the ladder is closed`, data: { evidenceRef: event.evidenceRef, occurrence: context.occurrence, atDaysRemaining: context.days, closes: true } })),
              assign({
                satisfied: ({ context, event }) => [...context.satisfied, { occurrence: context.occurrence, kind: 'satisfied' as const, evidenceRef: event.evidenceRef, atDaysRemaining: context.days }],
                resolution: ({ context, event }) => ({ kind: 'satisfied' as const, evidenceRef: event.evidenceRef, occurrence: context.occurrence, atDaysRemaining: context.days }),
              }),
            ],
          },
          { guard: 'recurringEvidence', target: '.counting', actions: 'roll' },
        ],
      },
      states: {
        counting: {
          on: {
            TICK: [
              { guard: 'landsOnTerminalRung', target: 'terminalRung', actions: 'tick' },
              { guard: 'landsBeforeDeadline', actions: 'tick' },
            ],
            ACK: {
              guard: 'ackDue',
              actions: [
                emit(({ context, event }) => fact({ kind: 'ladder.acked', by: 'human', actor: event.actor, note: `${event.actor} acknowledged the deadline at ${context.days} days remaining`, data: { atDaysRemaining: context.days, occurrence: context.occurrence } })),
                assign({
                  ackedToday: true,
                  acks: ({ context, event }) => [...context.acks, { actor: event.actor, atDaysRemaining: context.days, occurrence: context.occurrence }],
                }),
              ],
            },
          },
        },
        terminalRung: {
          tags: [TERMINAL_RUNG_TAG],
          on: {
            RESOLVE: {
              guard: 'outcomeListed',
              target: '#deadline-ladder.resolved',
              actions: [
                emit(({ context, event }) => fact({ kind: 'ladder.resolved', by: 'gate', note: `resolved at the terminal rung: ${event.outcome}`, data: { outcome: event.outcome, occurrence: context.occurrence } })),
                assign({ resolution: ({ context, event }) => ({ kind: 'terminal_rung' as const, outcome: event.outcome, occurrence: context.occurrence }) }),
              ],
            },
          },
        },
      },
    },
    resolved: { type: 'final' },
  },
});
