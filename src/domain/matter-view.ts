/**
 * What the service shows of a Matter, derived from its journal and its
 * actor's snapshot. The Client appears only as `{id}`: the service never
 * stores a Client's name, so it cannot leak one.
 */
import type { SnapshotFrom } from 'xstate';
import { matterStatus, STAGE_VERBS, TAG, TERMINALS, type matterMachine, type MatterContext, type MatterStatus, type ReservedAct, type StageVerb, type Terminal } from '../../machines/matter.ts';
import type { JournalEvent } from '../journal/store.ts';
import type { ClientFixture } from './fixtures.ts';
import type { Guardrails, Mandates } from './gate.ts';
import type { ConsumerPattern, MatterType, Rail } from './matter-types.ts';
import { matterLinks } from './links.ts';
import { settle } from './pricing.ts';

/** The facts journaled when a Matter opens (`matter.opened` data). */
export interface MatterFacts {
  matterType: MatterType;
  rail: Rail;
  jurisdiction: string;
  assetId: string;
  consumerPattern: ConsumerPattern;
  client: { id: string };
  clientFixture: ClientFixture;
  signals: string[];
  tenant?: string;
  mint?: string;
  offer?: string;
  listFeeUsd?: number;
  clientState?: string;
  exposureUsd?: number;
  clientMandates?: Mandates;
  tenantGuardrails?: Guardrails;
}

/** What a view of a Matter's state reads: its opening and the state the journal holds (a live entity, or its snapshot row). */
export interface MatterState {
  id: string;
  version: number;
  opened: JournalEvent;
  snapshot(): SnapshotFrom<typeof matterMachine>;
}

/** ...and its journal stream, for the views that show it. */
export interface MatterRecord extends MatterState {
  journal: JournalEvent[];
}

export const factsOf = (entity: MatterState): MatterFacts => entity.opened.data as unknown as MatterFacts;
export const contextOf = (entity: MatterState): MatterContext => entity.snapshot().context;

/** The machine state as a status: a Stage Verb, waiting_on_signer, needs_client_direction or a terminal. */
export const statusOf = (entity: MatterState): MatterStatus => matterStatus(entity.snapshot());

export const isTerminal = (status: string): status is Terminal => (TERMINALS as readonly string[]).includes(status);

const isStageVerb = (status: string): status is StageVerb => (STAGE_VERBS as readonly string[]).includes(status);

/** The stage a reserved act is escalated from. */
const STAGE_BEFORE: Record<ReservedAct, StageVerb> = { sign: 'review', file: 'sign' };

export function stageOf(entity: MatterState): StageVerb | Terminal {
  const status = statusOf(entity);
  if (isTerminal(status) || isStageVerb(status)) return status;
  const ctx = contextOf(entity);
  const act = ctx.pendingGig?.reservedAct ?? ctx.declinedAct;
  return act ? STAGE_BEFORE[act] : 'intake';
}

export function matterView(entity: MatterState) {
  const facts = factsOf(entity);
  const ctx = contextOf(entity);
  const status = statusOf(entity);
  return {
    id: entity.id,
    stage: stageOf(entity),
    status,
    rail: facts.rail,
    matterType: facts.matterType,
    jurisdiction: facts.jurisdiction,
    assetId: facts.assetId,
    consumerPattern: facts.consumerPattern,
    needsClientDirection: entity.snapshot().hasTag(TAG.awaitingClient),
    ...(ctx.pendingGig ? { pendingGigId: ctx.pendingGig.gigId, pendingAct: ctx.pendingGig.reservedAct } : {}),
    client: { id: facts.client.id },
    consented: ctx.consented,
    signals: facts.signals,
    attestedActs: ctx.attestedActs,
    ...(facts.offer !== undefined ? { offer: facts.offer } : {}),
    ...(facts.tenant !== undefined ? { tenant: facts.tenant } : {}),
    ...(facts.mint !== undefined ? { mint: facts.mint } : {}),
    ...(facts.listFeeUsd !== undefined ? { listFeeUsd: facts.listFeeUsd } : {}),
    openedAt: entity.opened.at,
    version: entity.version,
    links: matterLinks(entity.id, entity.opened.grain),
  };
}

function journalEntry(e: JournalEvent) {
  return {
    seq: e.seq,
    at: e.at,
    kind: e.kind,
    ...(e.verb !== undefined ? { verb: e.verb } : {}),
    by: e.by ?? 'gate',
    ...(e.actor !== undefined ? { actor: e.actor } : {}),
    note: e.summary,
    data: e.data,
  };
}

export const journalView = (entity: MatterRecord) => entity.journal.map(journalEntry);

export function attestationRows(entity: MatterRecord) {
  return entity.journal
    .filter((e) => e.kind === 'stage' && e.by === 'signer')
    .map((e) => ({ seq: e.seq, act: e.verb, attestation: e.data.attestation }));
}

export function documentRows(entity: MatterRecord) {
  return entity.journal.filter((e) => e.kind === 'document.recorded').map((e) => e.data.document as Record<string, unknown>);
}

export function settlementOf(entity: MatterState) {
  const facts = factsOf(entity);
  return settle(facts.rail, facts.matterType, contextOf(entity).attestedActs);
}

/** The status an Asset records for each Matter fact (its insert-only status history). */
function assetStatusFor(e: JournalEvent): string | null {
  switch (e.kind) {
    case 'matter.opened':
      return 'intake';
    case 'stage':
      return e.verb ?? null;
    case 'gig.posted':
      return 'waiting_on_signer';
    case 'gig.sent_back':
      return 'prepare';
    case 'gig.declined':
      return 'needs_client_direction';
    case 'client.direction':
      return e.data.reopened ? STAGE_BEFORE[e.data.declinedAct as ReservedAct] : null;
    case 'terminal':
    case 'lifecycle':
      return e.verb ?? null;
    default:
      return null;
  }
}

export function assetView(minted: JournalEvent, matters: MatterRecord[]) {
  const docket = matters.flatMap((m) => m.journal.map((e) => ({ seq: e.seq, at: e.at, kind: e.kind, summary: e.summary, matterId: m.id })));
  docket.sort((a, b) => a.seq - b.seq);
  const statusHistory = matters
    .flatMap((m) => m.journal.map((e) => ({ e, m })))
    .map(({ e, m }) => ({ status: assetStatusFor(e), at: e.at, seq: e.seq, matterId: m.id }))
    .filter((row): row is { status: string; at: string; seq: number; matterId: string } => row.status !== null)
    .sort((a, b) => a.seq - b.seq);
  const receipt = matters.map((m) => contextOf(m).receipt).find((r) => r);
  return {
    id: minted.stream,
    kind: minted.data.kind as string,
    title: minted.data.title as string,
    registryId: receipt ?? null,
    statusHistory,
    docket,
    lineage: matters.map((m) => m.id),
  };
}
