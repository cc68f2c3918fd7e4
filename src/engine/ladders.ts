/**
 * The Deadline Ladder commands: one ladder actor per Asset, opened in the same
 * transaction as the Matter that mints the Asset (a `MintExtension`), then
 * moved only by the deadline doors. Each command runs in the ladder's mailbox;
 * the refusals the spec names (resolved, not at the terminal rung, no ack due,
 * a tick past the deadline) are worded here and write nothing.
 *
 * A tick's one fact lists the rungs it crossed; each rung is also journaled as
 * its own `reminder.*` event in the same append (subject: the Asset, addressed
 * to the monitoring owner or carrying the vacancy alarm), which is what puts it
 * on the `reminders` feed and the SSE wire. Those reminder events carry no
 * machine cause, so rehydration folds each tick exactly once.
 */
import { decideAck, decideMonitor, decideResolve, decideSatisfy, decideTick, isResolved } from '../../machines/deadline-ladder.decide.ts';
import { ackWindow, DEADLINE_LADDER_MACHINE_VERSION, deadlineLadderMachine, NOTICE_RUNG_DAYS, TERMINAL_OUTCOMES, TERMINAL_RUNG_DAYS, type LadderContext, type LadderInput, type Rung, type TerminalOutcome } from '../../machines/deadline-ladder.ts';
import type { Fact } from '../../machines/fact.ts';
import { ladderRuleFor } from '../domain/ladder-rules.ts';
import { refusal } from '../domain/refusals.ts';
import { inFeed, type NewEvent } from '../journal/store.ts';
import type { Entity, EntityState } from './entity.ts';
import { fixturesApply } from './grains.ts';
import type { Command, CommandHandler, DecidedEntity } from './handle-command.ts';
import type { MintExtension } from './matters.ts';
import type { Supervisor } from './supervisor.ts';

/** A ladder's stream is its Asset's id under this prefix: one ladder per Asset. */
const STREAM_PREFIX = 'ladder:';

/** The ladder's stream id. One ladder per Asset, so the Asset id names it. */
export const ladderStreamOf = (assetId: string) => `${STREAM_PREFIX}${assetId}`;

export const LADDER: DecidedEntity<typeof deadlineLadderMachine> = {
  openedKind: 'ladder.opened',
  machine: deadlineLadderMachine,
  version: DEADLINE_LADDER_MACHINE_VERSION,
  notFound: (stream) => notFound(stream.slice(STREAM_PREFIX.length)),
  versionMismatch: (stream, expected, current) => {
    const assetId = stream.slice(STREAM_PREFIX.length);
    return refusal('VERSION_MISMATCH', { record: `the Deadline Ladder of Asset ${assetId}`, expected, current }, { assetId, currentVersion: current });
  },
};
export type LadderEntity = Entity<typeof deadlineLadderMachine>;

/** What a view reads of a ladder: the resident entity, or its snapshot row. */
export type LadderState = EntityState<typeof deadlineLadderMachine>;

const contextOf = (entity: LadderState): LadderContext => entity.snapshot().context;
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Where the count stands, named for a reader: which rung comes next. */
function rungOf(days: number): 'before_notice' | 'notice' | 'daily_ack' | 'terminal' {
  if (days === TERMINAL_RUNG_DAYS) return 'terminal';
  if (ackWindow(days)) return 'daily_ack';
  return days <= NOTICE_RUNG_DAYS ? 'notice' : 'before_notice';
}

/** The Deadline Ladder view of the spec, derived from the actor's snapshot. */
export function ladderView(entity: LadderState) {
  const ctx = contextOf(entity);
  const opened = entity.opened.data as { matterId: string; matterType: string; obligation: string; fixture: string | null };
  const resolved = isResolved(entity.snapshot());
  const vacant = ctx.owner === null;
  const current = resolved
    ? ctx.resolution?.kind === 'terminal_rung'
      ? [{ occurrence: ctx.resolution.occurrence, kind: 'resolved' as const, outcome: ctx.resolution.outcome, evidenceRef: null }]
      : []
    : [{ occurrence: ctx.occurrence, kind: 'open' as const, evidenceRef: null, daysUntilDeadline: ctx.days }];
  return {
    assetId: ctx.assetId,
    matterId: opened.matterId,
    obligation: opened.obligation,
    status: resolved ? ('resolved' as const) : ('open' as const),
    rung: resolved ? ('resolved' as const) : rungOf(ctx.days),
    daysUntilDeadline: ctx.days,
    alarm: vacant ? ('vacant' as const) : ('nominal' as const),
    vacant,
    monitoring: { assetId: ctx.assetId, signerId: ctx.owner },
    ackRequiredToday: !resolved && ackWindow(ctx.days) && !ctx.ackedToday,
    terminalOutcomes: [...TERMINAL_OUTCOMES],
    occurrences: [...ctx.satisfied, ...current],
    acks: ctx.acks,
    resolution: ctx.resolution,
    ...(ctx.recurEveryDays !== null ? { recurEveryDays: ctx.recurEveryDays, nextOccurrenceInDays: resolved ? null : ctx.days + ctx.recurEveryDays } : {}),
    ...(opened.fixture ? { fixture: opened.fixture } : {}),
    version: entity.version,
  };
}

export type LadderView = ReturnType<typeof ladderView>;

export class Ladders {
  constructor(
    private readonly supervisor: Supervisor,
    private readonly commands: CommandHandler,
  ) {}

  /**
   * Opens the Asset's ladder inside the Matter's opening transaction, with the
   * length and cadence the rules table gives the matter type (or a fixture).
   */
  readonly mintExtension: MintExtension = ({ grain, matterId, assetId, request }) => {
    // A fixture title places the ladder only inside a sandbox grain.
    const rule = ladderRuleFor(request.matterType, fixturesApply(grain) ? request.asset?.title : undefined);
    const input: LadderInput = { assetId, daysUntilDeadline: rule.daysUntilDeadline, recurEveryDays: rule.recurEveryDays };
    const recurring = rule.recurEveryDays !== null ? `, recurring every ${rule.recurEveryDays} days` : '';
    const opened: Fact = {
      kind: LADDER.openedKind,
      by: 'gate',
      note: `Deadline Ladder opened for Asset ${assetId}: ${rule.obligation}, ${plural(rule.daysUntilDeadline, 'day')} until the deadline${recurring}; no monitoring owner named yet (alarm vacant)`,
      data: { matterId, matterType: request.matterType, obligation: rule.obligation, daysUntilDeadline: rule.daysUntilDeadline, recurEveryDays: rule.recurEveryDays, fixture: rule.fixture, alarm: 'vacant' },
    };
    return [this.supervisor.openingWrite(LADDER, ladderStreamOf(assetId), assetId, input, opened)];
  };

  /** The ladder view of an Asset in this grain; 404 when there is none. */
  async view(grain: string, assetId: string): Promise<LadderView> {
    const view = await this.viewOf(grain, assetId);
    if (!view) throw notFound(assetId);
    return view;
  }

  /** The ladder view, or null when the Asset has none here (for embedding in the Asset). */
  async viewOf(grain: string, assetId: string): Promise<LadderView | null> {
    const state = await this.stateOf(grain, assetId);
    return state ? ladderView(state) : null;
  }

  /** The ladder's committed state, or null when the Asset has none here: for a reader that looks at its version before it builds the view (`ladderView`). */
  stateOf(grain: string, assetId: string): Promise<LadderState | null> {
    return this.supervisor.read(LADDER, ladderStreamOf(assetId), grain);
  }

  private handle<T>(grain: string, assetId: string, command: Command<typeof deadlineLadderMachine, T>): Promise<T> {
    return this.commands.handle(LADDER, grain, ladderStreamOf(assetId), command);
  }

  /** Moves the ladder `days` closer to its deadline; each rung crossed is journaled as its own reminder beside the tick. */
  tick(grain: string, assetId: string, days: number, expectedVersion?: number) {
    return this.handle(grain, assetId, {
      expectedVersion,
      decide: (ladder) => decideTick(ladder, { days }),
      derive: (ladder, ticked) => this.reminders(ladder, ticked),
      reply: (ladder, written) => {
        const rungs = written.filter((e) => inFeed('reminders', e)).map((e) => ({ rung: e.data.rung as string, atDaysRemaining: e.data.atDaysRemaining as number, kind: e.kind, seq: e.seq, ...(e.deliverTo ? { deliverTo: e.deliverTo } : {}) }));
        return { entity: ladder, rungs, seq: written[0].seq };
      },
    });
  }

  /** The daily human acknowledgment, owed from 7 days to 1 day remaining, once a day. */
  ack(grain: string, assetId: string, actor: string, expectedVersion?: number) {
    return this.handle(grain, assetId, {
      expectedVersion,
      decide: (ladder) => decideAck(ladder, { actor }),
      reply: (ladder, [acked]) => ({ entity: ladder, atDaysRemaining: acked.data.atDaysRemaining as number, seq: acked.seq }),
    });
  }

  /** Names the monitoring owner (a Signer id or `platform`), clearing the vacancy alarm. */
  monitor(grain: string, assetId: string, signerId: string, expectedVersion?: number) {
    return this.handle(grain, assetId, { expectedVersion, decide: (ladder) => decideMonitor(ladder, { signerId }), reply: answerSeq });
  }

  /** Evidence closes a one-shot ladder, or rolls a recurring one forward by one cadence. */
  satisfy(grain: string, assetId: string, evidenceRef: string, expectedVersion?: number) {
    return this.handle(grain, assetId, { expectedVersion, decide: (ladder) => decideSatisfy(ladder, { evidenceRef }), reply: answerSeq });
  }

  /** At the terminal rung, one of the four outcomes closes the ladder for good. */
  resolve(grain: string, assetId: string, outcome: TerminalOutcome, expectedVersion?: number) {
    return this.handle(grain, assetId, { expectedVersion, decide: (ladder) => decideResolve(ladder, { outcome }), reply: answerSeq });
  }

  /** One tail event per rung a tick crossed, addressed to the owner or marked vacant (journal-only: they carry no cause, so a fold never replays them). */
  private reminders(entity: LadderEntity, ticked: Fact): NewEvent[] {
    if (ticked.kind !== 'ladder.ticked') return [];
    const { assetId, owner, occurrence } = contextOf(entity);
    const obligation = (entity.opened.data as { obligation: string }).obligation;
    const vacancy = owner === null ? '; no monitoring owner is named (alarm vacant): POST /deadlines/' + assetId + '/monitor' : '';
    return (ticked.data.rungs as Rung[]).map((r) => ({
      kind: `reminder.${r.rung}`,
      at: this.supervisor.clock.stamp(),
      subject: assetId,
      summary: reminderSummary(r, assetId, obligation) + vacancy,
      by: 'gate',
      ...(owner !== null ? { deliverTo: owner } : {}),
      data: { rung: r.rung, atDaysRemaining: r.atDaysRemaining, occurrence, obligation, alarm: owner === null ? 'vacant' : 'nominal' },
    }));
  }
}

/** The answer of a ladder write that shows the ladder: it, and the seq its fact landed at. */
const answerSeq = (entity: LadderEntity, [written]: Array<{ seq: number }>) => ({ entity, seq: written.seq });

function reminderSummary(r: Rung, assetId: string, obligation: string): string {
  switch (r.rung) {
    case 'notice':
      return `Notice: ${NOTICE_RUNG_DAYS} days remain until the ${obligation} deadline of Asset ${assetId}`;
    case 'ack_due':
      return `Acknowledgment due today: ${plural(r.atDaysRemaining, 'day')} remain until the ${obligation} deadline of Asset ${assetId} (POST /deadlines/${assetId}/ack)`;
    case 'ack_missed':
      return `Acknowledgment missed: nobody acknowledged the ${obligation} deadline of Asset ${assetId} at ${plural(r.atDaysRemaining, 'day')} remaining`;
    case 'terminal':
      return `Terminal rung: the ${obligation} deadline of Asset ${assetId} is today; satisfy it with evidence or resolve it with one of ${TERMINAL_OUTCOMES.join(', ')}`;
  }
}

function notFound(assetId: string) {
  return refusal('LADDER_NOT_FOUND', { assetId }, { assetId });
}
