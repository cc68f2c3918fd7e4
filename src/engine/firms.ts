/**
 * Sandbox firms. A firm is an envelope, never a marketplace actor: it holds
 * member-executed Enrollment grants (`roster`, `remittance`, `routing`), not
 * accounts. No firm door signs, claims, attests or scores.
 *
 * Each member Enrollment is an actor of `machines/enrollment.ts`, run by the
 * supervisor in its own mailbox and journaled in the firm's grain. Every
 * command on a firm (enroll, amend, revoke, declare routing) also runs under
 * the firm's grain lock, so a routing declaration is decided against the
 * Enrollments as they stand and two enrollments of one member cannot race.
 *
 * Everything shown is derived from the journal: the roster (Enrollment status
 * plus the member's binary facts), the enrollment counts, the routing with
 * each opt-in's countersignature, the remittance lines.
 */
import { ENROLLMENT_MACHINE_VERSION, enrollmentMachine, enrollmentStatus, ENROLLMENT_GRANTS, grantsAfter, isGrant, type EnrollmentContext, type EnrollmentStatus, type Grant } from '../../machines/enrollment.ts';
import { deriveRosterRow, FIRM_MEMBERS, memberOf, type RosterRow } from '../domain/firm-members.ts';
import { newId } from '../domain/ids.ts';
import { RAIL_OF } from '../domain/matter-types.ts';
import { POSTED_PRICES, settle } from '../domain/pricing.ts';
import { refusal } from '../domain/refusals.ts';
import { eachStreamHead, type JournalEvent } from '../journal/store.ts';
import type { Entity } from './entity.ts';
import type { CommandHandler, DecidedEntity } from './handle-command.ts';
import type { Supervisor } from './supervisor.ts';
import { decideAmend, decideRevoke, isLive as enrollmentLives } from '../../machines/enrollment.decide.ts';
import { SandboxGrains, type Grain } from './workspaces.ts';

export const ENROLLMENT: DecidedEntity<typeof enrollmentMachine> = {
  openedKind: 'enrollment.opened',
  machine: enrollmentMachine,
  version: ENROLLMENT_MACHINE_VERSION,
  // A member's Enrollment is found by member first (`currentOf`); a command reaches it by its id.
  notFound: (id) => refusal('ENROLLMENT_NOT_FOUND', { enrollmentId: id }, { enrollmentId: id }),
  versionMismatch: (id, expected, current) => refusal('VERSION_MISMATCH', { record: `Enrollment ${id}`, expected, current }, { enrollmentId: id, currentVersion: current }),
};
export type EnrollmentEntity = Entity<typeof enrollmentMachine>;

/** The journaled instrument of one member act, as the 201 and 200 answers show it. */
export interface Ceremony {
  instrument: 'enrollment' | 'amendment' | 'revocation';
  enrollmentId: string;
  firmId: string;
  memberId: string;
  granted?: Grant[];
  revoked?: Grant[];
  grants?: Grant[];
  executedBy: string;
  executedAt: string;
  seq: number;
}

export interface FirmRouting {
  participationWindows?: Array<{ day: string; from: string; to: string; timezone?: string }>;
  memberOptIns?: Array<{ memberId: string; matterTypes?: string[] }>;
  remittanceDesignation?: 'individual' | 'firm';
}

export const statusOfEnrollment = (e: EnrollmentEntity): EnrollmentStatus => enrollmentStatus(e.snapshot().value);
const contextOfEnrollment = (e: EnrollmentEntity): EnrollmentContext => e.snapshot().context;
const isLive = (e: EnrollmentEntity) => enrollmentLives(e.snapshot());

export function ceremonyOf(event: JournalEvent): Ceremony {
  const d = event.data;
  return {
    instrument: d.instrument as Ceremony['instrument'],
    enrollmentId: event.stream,
    firmId: d.firmId as string,
    memberId: d.memberId as string,
    ...(d.granted ? { granted: d.granted as Grant[] } : {}),
    ...(d.revoked ? { revoked: d.revoked as Grant[] } : {}),
    ...(d.grants ? { grants: d.grants as Grant[] } : {}),
    executedBy: d.executedBy as string,
    executedAt: event.at,
    seq: event.seq,
  };
}

/** One member's current Enrollment as the enrollments list shows it. */
export function enrollmentRow(e: EnrollmentEntity) {
  const ctx = contextOfEnrollment(e);
  const status = statusOfEnrollment(e);
  const member = memberOf(ctx.memberId)!;
  const row = deriveRosterRow(ctx.memberId, status, ctx.grants, member.facts);
  const revoked = e.journal.find((j) => j.kind === 'enrollment.revoked');
  return {
    memberId: ctx.memberId,
    enrollmentId: e.id,
    version: e.version,
    status,
    grants: status === 'revoked' ? [] : ctx.grants,
    standing: member.facts,
    eligible: row.eligible,
    ...(row.failingPredicate ? { failingPredicate: row.failingPredicate } : {}),
    enrolledAt: e.opened.at,
    ...(revoked ? { revokedAt: revoked.at } : {}),
    ceremonies: e.journal.map(ceremonyOf),
  };
}

export class Firms extends SandboxGrains {
  constructor(
    supervisor: Supervisor,
    private readonly commands: CommandHandler,
    ttlSeconds?: number,
    now?: () => number,
    capacity?: number,
  ) {
    super('firm', supervisor, ttlSeconds, now, capacity);
  }

  /** Every Enrollment ever opened in the firm, oldest first. */
  async allEnrollments(firmId: string): Promise<EnrollmentEntity[]> {
    const out: EnrollmentEntity[] = [];
    for await (const head of eachStreamHead(this.supervisor.journal, firmId, ENROLLMENT.openedKind)) {
      const entity = await this.supervisor.load(ENROLLMENT, head.stream);
      if (entity) out.push(entity);
    }
    return out;
  }

  /** Each member's current (latest) Enrollment, in the order those Enrollments opened. */
  async currentEnrollments(firmId: string): Promise<EnrollmentEntity[]> {
    const latest = new Map<string, EnrollmentEntity>();
    // Enrollments come in seq order; a member's later one moves to the end, so the map keeps that order.
    for (const e of await this.allEnrollments(firmId)) {
      const memberId = contextOfEnrollment(e).memberId;
      latest.delete(memberId);
      latest.set(memberId, e);
    }
    return [...latest.values()];
  }

  private async currentOf(firmId: string, memberId: string): Promise<EnrollmentEntity | undefined> {
    return (await this.currentEnrollments(firmId)).find((e) => contextOfEnrollment(e).memberId === memberId);
  }

  async counts(firmId: string) {
    const all = await this.allEnrollments(firmId);
    const revoked = all.filter((e) => !isLive(e)).length;
    return { enrolled: all.length - revoked, revoked };
  }

  /**
   * A member executes grants: a fresh Enrollment when the member holds no live
   * one, an amendment adding grants when it does. Returns the ceremony; for the
   * revoking fixture member, also the revocation it executes right after.
   */
  enroll(firmId: string, memberId: string, asked: string[] | undefined, expectedVersion?: number) {
    return this.withGrain(firmId, async () => {
      refuseUnknownMember(memberId);
      const grants = asked ?? ['roster'];
      if (grants.length === 0) throw refusal('NO_GRANT', {});
      const unknown = grants.find((g) => !isGrant(g));
      if (unknown !== undefined) throw refusal('UNKNOWN_GRANT', { grant: unknown }, { allowed: ENROLLMENT_GRANTS });
      const current = await this.currentOf(firmId, memberId);
      if (current && isLive(current)) return { ...(await this.amend(firmId, current, grants as Grant[], expectedVersion)), act: 'amended' as const };
      // Conditional on the member's Enrollment as read: a revoked one still at that version, or none (version 0).
      const at = current?.version ?? 0;
      if (expectedVersion !== undefined && expectedVersion !== at) throw ENROLLMENT.versionMismatch!(current?.id ?? `of member ${memberId}`, expectedVersion, at);

      const enrollmentId = newId('en');
      const granted = grantsAfter([], grants);
      const { entity } = await this.supervisor.open(ENROLLMENT, firmId, enrollmentId, { firmId, memberId, grants: granted }, {
        kind: ENROLLMENT.openedKind,
        verb: 'enrolled',
        by: 'member',
        actor: memberId,
        note: `${memberId} executed an enrollment granting ${granted.join(', ')}`,
        data: { instrument: 'enrollment', firmId, memberId, granted, grants: granted, executedBy: memberId },
      });
      const ceremony = ceremonyOf(entity.opened);
      if (!memberOf(memberId)!.revokesAfterEnrolling) return { entity, ceremony, act: 'enrolled' as const };
      const then = await this.commands.handle(ENROLLMENT, firmId, enrollmentId, {
        decide: (e) => decideRevoke(e, { reason: 'the fixture member revokes mid-scenario' }),
        reply: (_, [revocation]) => ceremonyOf(revocation),
      });
      return { entity, ceremony, act: 'enrolled' as const, then };
    });
  }

  private amend(firmId: string, current: EnrollmentEntity, grants: Grant[], expectedVersion?: number) {
    return this.commands.handle(ENROLLMENT, firmId, current.id, {
      expectedVersion,
      decide: (entity) => decideAmend(entity, { grants }),
      reply: (entity, [amended]) => ({ entity, ceremony: ceremonyOf(amended) }),
    });
  }

  /** The member withdraws every grant: the Enrollment ends. Revoking again is 409. */
  revoke(firmId: string, memberId: string, expectedVersion?: number) {
    return this.withGrain(firmId, async () => {
      refuseUnknownMember(memberId);
      const current = await this.currentOf(firmId, memberId);
      if (!current) throw refusal('ENROLLMENT_NOT_FOUND', { memberId, firmId }, { memberId });
      return this.commands.handle(ENROLLMENT, firmId, current.id, {
        expectedVersion,
        decide: (entity) => decideRevoke(entity, { revokedAt: entity.journal.find((j) => j.kind === 'enrollment.revoked')?.at }),
        reply: (entity, [revocation]) => ({ entity, revocation: ceremonyOf(revocation) }),
      });
    });
  }

  /** Roster rows: live Enrollments holding the `roster` grant; a revoked row is blanked (derived, not deleted). */
  async roster(firmId: string): Promise<{ rows: RosterRow[]; blanked: number }> {
    const rows: RosterRow[] = [];
    let blanked = 0;
    for (const e of await this.currentEnrollments(firmId)) {
      const ctx = contextOfEnrollment(e);
      if (!isLive(e)) {
        if (ctx.grants.includes('roster')) blanked++;
        continue;
      }
      if (!ctx.grants.includes('roster')) continue;
      rows.push(deriveRosterRow(ctx.memberId, statusOfEnrollment(e), ctx.grants, memberOf(ctx.memberId)!.facts));
    }
    return { rows, blanked };
  }

  /** Members whose live Enrollment holds `grant`. */
  async holding(firmId: string, grant: Grant): Promise<Set<string>> {
    const out = new Set<string>();
    for (const e of await this.currentEnrollments(firmId)) {
      if (isLive(e) && contextOfEnrollment(e).grants.includes(grant)) out.add(contextOfEnrollment(e).memberId);
    }
    return out;
  }

  /**
   * Declares the firm's routing preferences (mechanics only; the caller has
   * screened merits-bearing and actor-shaped keys). Remittance goes to each
   * individual: a `firm` designation is 403 BLOCKED. Each opt-in must be
   * countersigned by that member's live `routing` grant.
   */
  declareRouting(firmId: string, routing: FirmRouting) {
    return this.withGrain(firmId, async (grain) => {
      if (routing.remittanceDesignation === 'firm') {
        throw refusal('REMITTANCE_TO_FIRM', {}, { accepted: ['individual'] });
      }
      for (const [i, w] of (routing.participationWindows ?? []).entries()) {
        if (w.from >= w.to) throw refusal('MALFORMED_MECHANICS', { index: i, from: w.from, to: w.to });
      }
      const seen = new Set<string>();
      const routingHolders = await this.holding(firmId, 'routing');
      for (const [i, optIn] of (routing.memberOptIns ?? []).entries()) {
        if (seen.has(optIn.memberId)) throw refusal('MALFORMED_MECHANICS', { index: i, memberId: optIn.memberId });
        seen.add(optIn.memberId);
        if (!routingHolders.has(optIn.memberId)) {
          throw refusal('OPT_IN_NOT_COUNTERSIGNED', { index: i, memberId: optIn.memberId, firmId }, { memberId: optIn.memberId });
        }
      }
      const declared = { ...routing, remittanceDesignation: routing.remittanceDesignation ?? 'individual' };
      const written = await this.declare(grain, { kind: 'firm.routing.declared', by: 'firm', note: 'routing preferences declared (mechanics only)', data: { routing: declared } });
      return { routing: declared, seq: written.seq };
    });
  }

  /** The latest routing declaration, each opt-in marked by whether its countersignature is still live. */
  async routingOf(grain: Grain) {
    const last = [...grain.stream].reverse().find((e) => e.kind === 'firm.routing.declared');
    if (!last) return null;
    const routing = last.data.routing as FirmRouting;
    const holders = await this.holding(grain.record.id, 'routing');
    return {
      routing: { ...routing, ...(routing.memberOptIns ? { memberOptIns: routing.memberOptIns.map((o) => ({ ...o, countersigned: holders.has(o.memberId) })) } : {}) },
      declaredSeq: last.seq,
      declaredAt: last.at,
    };
  }

  /**
   * Per-member remittance lines for members whose live Enrollment grants
   * `remittance`, aggregated from their settled acts (synthetic in the
   * sandbox). The view aggregates only: each line's Merchant of Record is the
   * platform (patent rail) or the individual Signer (state rail), never the firm.
   */
  async remittances(firmId: string) {
    const members = [...(await this.holding(firmId, 'remittance'))];
    const rows = members.map((memberId) => {
      const lines = memberOf(memberId)!.settled.map(({ matterType, attestedActs }) => {
        const rail = RAIL_OF[matterType];
        // The settlement's own rule decides the Legal Fee and who is merchant of record for it.
        const settled = settle(rail, matterType, attestedActs);
        return { matterType, rail, attestedActs, legalFeePerActUsd: POSTED_PRICES[matterType].legalFeePerActUsd, legalFeeUsd: settled.legalFeeToSignerUsd, merchantOfRecord: settled.legalFeeMerchantOfRecord === 'platform' ? 'platform' : memberId };
      });
      return { memberId, lines, attestedActs: sum(lines.map((l) => l.attestedActs)), legalFeeUsd: sum(lines.map((l) => l.legalFeeUsd)) };
    });
    return { rows, totals: { members: rows.length, attestedActs: sum(rows.map((r) => r.attestedActs)), legalFeeUsd: sum(rows.map((r) => r.legalFeeUsd)) } };
  }
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/** The sandbox member directory's ids, read off the directory and named as a list ("a, b and c"). */
const MEMBER_IDS = FIRM_MEMBERS.map((m) => m.memberId);
const DIRECTORY_IDS = `${MEMBER_IDS.slice(0, -1).join(', ')} and ${MEMBER_IDS[MEMBER_IDS.length - 1]}`;

function refuseUnknownMember(memberId: string) {
  if (!memberOf(memberId)) {
    throw refusal('UNKNOWN_MEMBER', { memberId, directory: DIRECTORY_IDS }, { memberId });
  }
}
