/**
 * The Deadline Ladder rules table: which obligation each Matter's Asset is
 * watched for, how many days its ladder opens with, and (for recurring
 * obligations) its cadence. Every Matter mints its Asset's ladder from this
 * table in the same transaction that opens the Matter.
 *
 * The preview has no docket feed, so the lengths are the statutory or
 * customary windows counted from the day the Matter opens. Ladders never read
 * a clock after that: they move on explicit ticks only.
 *
 * | matterType              | obligation                  | opens at  | recurs every |
 * |-------------------------|-----------------------------|-----------|--------------|
 * | patent_provisional      | nonprovisional_conversion   | 365 days  | one-shot     |
 * | patent_utility          | foreign_priority_window     | 365 days  | one-shot     |
 * | patent_maintenance      | maintenance_fee_window      | 1,278 d   | 1,461 days   |
 * | trademark_office_action | office_action_response      | 90 days   | one-shot     |
 * | demand_letter           | response_window             | 60 days   | one-shot     |
 * | contract_review         | signature_deadline          | 45 days   | one-shot     |
 * | entity_formation        | initial_report              | 90 days   | one-shot     |
 *
 * Fixture Assets (sandbox and top level alike, by `asset.title` prefix):
 * - `[fixture:ack-due]`: the ladder opens at 5 days, inside the final week, so
 *   the daily-ack rung is live from the first read (`ackRequiredToday: true`).
 * - `[fixture:notice-eve]`: the ladder opens at 31 days, one day above the
 *   notice rung, so the first tick (of any length) fires `reminder.notice`.
 * A fixture changes only where the ladder starts; a recurring type keeps its cadence.
 */
import { NOTICE_RUNG_DAYS } from '../../machines/deadline-ladder.ts';
import { FIXTURE } from './fixtures.ts';
import type { MatterType } from './matter-types.ts';

export interface LadderRule {
  /** What the ladder watches, named for the reader of the ladder view. */
  obligation: string;
  daysUntilDeadline: number;
  /** The cadence of a recurring obligation; null for one-shot. */
  recurEveryDays: number | null;
}

/** 3.5 years to the first US maintenance fee, then every 4 years (7.5, 11.5). */
const MAINTENANCE_FIRST_DAYS = 1278;
const MAINTENANCE_CADENCE_DAYS = 1461;

export const LADDER_RULES: Readonly<Record<MatterType, LadderRule>> = {
  patent_provisional: { obligation: 'nonprovisional_conversion', daysUntilDeadline: 365, recurEveryDays: null },
  patent_utility: { obligation: 'foreign_priority_window', daysUntilDeadline: 365, recurEveryDays: null },
  patent_maintenance: { obligation: 'maintenance_fee_window', daysUntilDeadline: MAINTENANCE_FIRST_DAYS, recurEveryDays: MAINTENANCE_CADENCE_DAYS },
  trademark_office_action: { obligation: 'office_action_response', daysUntilDeadline: 90, recurEveryDays: null },
  demand_letter: { obligation: 'response_window', daysUntilDeadline: 60, recurEveryDays: null },
  contract_review: { obligation: 'signature_deadline', daysUntilDeadline: 45, recurEveryDays: null },
  entity_formation: { obligation: 'initial_report', daysUntilDeadline: 90, recurEveryDays: null },
};

/** Where the ack-due fixture's ladder opens: inside the final week. */
export const ACK_DUE_FIXTURE_DAYS = 5;
/** Where the notice-eve fixture's ladder opens: one day above the notice rung. */
export const NOTICE_EVE_FIXTURE_DAYS = NOTICE_RUNG_DAYS + 1;

/** Each fixture: the Asset-title prefix that selects it, and the day its ladder opens at instead. */
const LADDER_FIXTURES = [
  { fixture: 'ack-due', prefix: FIXTURE.ackDuePrefix, daysUntilDeadline: ACK_DUE_FIXTURE_DAYS },
  { fixture: 'notice-eve', prefix: FIXTURE.noticeEvePrefix, daysUntilDeadline: NOTICE_EVE_FIXTURE_DAYS },
] as const;

export type LadderFixture = (typeof LADDER_FIXTURES)[number]['fixture'] | null;

/** The ladder a new Matter's Asset opens with. */
export function ladderRuleFor(matterType: MatterType, assetTitle?: string): LadderRule & { fixture: LadderFixture } {
  const rule = LADDER_RULES[matterType];
  const fixture = LADDER_FIXTURES.find((f) => assetTitle?.startsWith(f.prefix));
  return fixture ? { ...rule, daysUntilDeadline: fixture.daysUntilDeadline, fixture: fixture.fixture } : { ...rule, fixture: null };
}
