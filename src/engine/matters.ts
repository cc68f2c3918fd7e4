/**
 * The Matter commands. Each runs in the Matter's mailbox: the Gate checks
 * (state, predicates, mechanics, merits, the Signer registry) come first and
 * refuse without writing; an accepted command commits machine events through
 * the supervisor, which journals their facts before the actor moves.
 */
import { matterMachine, type Attestation, type ConsumerPattern, type MatterEvent, type ReservedAct } from '../../machines/matter.ts';
import { isConflictParty, clientFixtureOf } from '../domain/fixtures.ts';
import { mechanicsRefusal, meritsRefusal, type Guardrails, type Mandates } from '../domain/gate.ts';
import { newId } from '../domain/ids.ts';
import { deriveJurisdiction } from '../domain/jurisdiction.ts';
import { DEFAULT_ASSET_KIND, ORDER_MATTER_TYPE, RAIL_OF, type GigOutcome, type MatterType, type Rail } from '../domain/matter-types.ts';
import { contextOf, factsOf, isTerminal, stageOf, statusOf, type MatterFacts } from '../domain/matter-view.ts';
import { refuse, Refusal } from '../domain/refusal.ts';
import type { SignerRegistry } from '../domain/signer-registry.ts';
import { SupplyRefused, syntheticReceipt, type ImmediateAnswer, type SupplyNetwork } from '../domain/supply-network.ts';
import { eachStreamHead, VersionConflict, type JournalEvent, type StreamWrite } from '../journal/store.ts';
import { Entity, type EntityDefinition } from './entity.ts';
import { fixturesApply } from './grains.ts';
import { acceptedBefore, callbackRecord, callbackStream, type Delivery } from './supply-callbacks.ts';
import type { Supervisor } from './supervisor.ts';
import { sha256Hex } from '../domain/hash.ts';

export const MATTER: EntityDefinition<typeof matterMachine> = { openedKind: 'matter.opened', machine: matterMachine };
export type MatterEntity = Entity<typeof matterMachine>;

export interface MintRequest {
  matterType: MatterType;
  consumerPattern?: ConsumerPattern;
  rail?: Rail;
  tenant?: string;
  mint?: string;
  offer?: string;
  listFeeUsd?: number;
  client?: { name?: string };
  asset?: { kind?: string; title?: string };
  clientState?: string;
  adverseParties?: Array<string | { name: string }>;
  exposureUsd?: number;
  clientMandates?: Mandates & Record<string, unknown>;
  tenantGuardrails?: Guardrails;
}

/** Extra streams written in the same transaction as a new Matter (its Asset's ladder, ...). */
export type MintExtension = (ctx: { grain: string; matterId: string; assetId: string; request: MintRequest; facts: MatterFacts }) => StreamWrite[];

export interface AdvanceResult {
  entity: MatterEntity;
  committed?: { advanceTo: string; by: string };
  escalated?: { reservedAct: ReservedAct; gigId: string; answered?: string };
}

export interface GigResultRequest {
  gigId: string;
  outcome: GigOutcome;
  attestation?: Partial<Attestation>;
  memo?: string;
  receipt?: string;
}

const CREDENTIAL_REF = /^[a-z][a-z0-9-]*:[A-Za-z0-9-]+$/;
const ARTIFACT_HASH = /^sha256:[0-9a-f]{64}$/;
const nameOf = (p: string | { name: string }) => (typeof p === 'string' ? p : p.name);

export class Matters {
  /** Streams other modules add to a Matter's opening transaction (a ladder per Asset). */
  readonly mintExtensions: MintExtension[] = [];
  /** Tenant Guardrails a grain adds to every Matter in it (a Tenant's routing `maxFeeUsd`): the Gate applies them at creation and at every advance. */
  grainGuardrails?: (grain: string) => Promise<Guardrails | undefined>;
  /** Each live Matter's Asset minting (never rewritten): known from the create that wrote it, else read once. */
  private readonly mintings = new WeakMap<MatterEntity, JournalEvent>();

  constructor(
    private readonly supervisor: Supervisor,
    private readonly supply: SupplyNetwork,
    /** The Signer registry a grain's results are verified against: the fixtures' in a sandbox, the registered Signers' at the top level. */
    private readonly signersOf: (grain: string) => SignerRegistry,
  ) {}

  /** Opens a Matter in `intake` and mints its Asset, in one transaction. */
  async create(grain: string, request: MintRequest): Promise<MatterEntity> {
    const rail = RAIL_OF[request.matterType];
    if (request.rail !== undefined && request.rail !== rail) {
      throw refuse.unprocessable('RAIL_MISMATCH', `matterType ${request.matterType} runs on the ${rail} rail, not ${request.rail}`);
    }
    const matterId = newId('mt');
    const assetId = newId('as');
    const jurisdiction = deriveJurisdiction({ rail, matterType: request.matterType, clientState: request.clientState });
    const refusal = mechanicsRefusal({ listFeeUsd: request.listFeeUsd, jurisdiction }, request.tenantGuardrails, await this.grainGuardrails?.(grain));
    if (refusal) throw refusal;
    const adverse = request.adverseParties ?? [];
    // Fixture names are ordinary names outside sandbox grains.
    const fixtures = fixturesApply(grain);
    const facts: MatterFacts = {
      matterType: request.matterType,
      rail,
      jurisdiction,
      assetId,
      consumerPattern: request.consumerPattern ?? 'B2A',
      client: { id: newId('cl') },
      clientFixture: fixtures ? clientFixtureOf(request.client?.name) : null,
      signals: fixtures && adverse.some((p) => isConflictParty(nameOf(p))) ? ['conflict_hit'] : [],
      ...(request.tenant !== undefined ? { tenant: request.tenant } : {}),
      ...(request.mint !== undefined ? { mint: request.mint } : {}),
      ...(request.offer !== undefined ? { offer: request.offer } : {}),
      ...(request.listFeeUsd !== undefined ? { listFeeUsd: request.listFeeUsd } : {}),
      ...(request.clientState !== undefined ? { clientState: request.clientState } : {}),
      ...(request.exposureUsd !== undefined ? { exposureUsd: request.exposureUsd } : {}),
      ...(request.clientMandates !== undefined ? { clientMandates: request.clientMandates } : {}),
      ...(request.tenantGuardrails !== undefined ? { tenantGuardrails: request.tenantGuardrails } : {}),
      // Adverse parties are kept as hashes only, like every conflicts ledger.
      ...(adverse.length ? { adversePartyHashes: adverse.map((p) => sha256Hex(nameOf(p).trim().toLowerCase())) } : {}),
    } as MatterFacts;
    const asset = {
      kind: request.asset?.kind ?? DEFAULT_ASSET_KIND[request.matterType],
      title: request.asset?.title ?? `Untitled ${request.matterType.replace(/_/g, ' ')}`,
      matterId,
    };
    const alsoWrite = (): StreamWrite[] => [
      this.supervisor.factWrite(assetId, 0, { kind: 'asset.minted', by: 'gate', note: `Asset minted for Matter ${matterId}`, data: asset }),
      ...this.mintExtensions.flatMap((extend) => extend({ grain, matterId, assetId, request, facts })),
    ];
    const { entity, written } = await this.supervisor.open(
      MATTER,
      grain,
      matterId,
      { consumerPattern: facts.consumerPattern },
      { kind: 'matter.opened', verb: 'intake', by: 'gate', note: `Matter opened in intake; Asset ${assetId} minted`, data: facts as unknown as Record<string, unknown> },
      alsoWrite,
    );
    this.mintings.set(entity, written.find((e) => e.stream === assetId)!);
    return entity;
  }

  /** The journaled minting of the Matter's Asset. */
  async mintingOf(entity: MatterEntity): Promise<JournalEvent> {
    let minted = this.mintings.get(entity);
    if (!minted) {
      [minted] = await this.supervisor.journal.readStream(factsOf(entity).assetId);
      this.mintings.set(entity, minted);
    }
    return minted;
  }

  async get(grain: string, id: string): Promise<MatterEntity> {
    const entity = await this.supervisor.loadIn(MATTER, id, grain);
    if (!entity) throw notFound(id);
    return entity;
  }

  private run<T>(grain: string, id: string, work: (entity: MatterEntity) => Promise<T>): Promise<T> {
    return this.supervisor.dispatch(MATTER, id, grain, () => notFound(id), work);
  }

  /** Advances to the next stage, or escalates the reserved act as a Gig. */
  advance(grain: string, id: string, body: { merits?: Record<string, unknown>; note?: string; by?: string } = {}): Promise<AdvanceResult> {
    return this.run(grain, id, async (entity) => {
      refuseUnlessWritable(entity);
      refuseUnlessAdvanceable(entity);
      const facts = factsOf(entity);
      const gate = mechanicsRefusal({ listFeeUsd: facts.listFeeUsd, jurisdiction: facts.jurisdiction }, facts.tenantGuardrails, await this.grainGuardrails?.(grain)) ?? meritsRefusal(body.merits, facts.clientMandates);
      if (gate) throw gate;
      const status = statusOf(entity);
      if (status === 'review' || status === 'sign') return this.escalate(entity);
      const event: MatterEvent = { type: 'ADVANCE', by: body.by ?? 'agent', ...(body.note ? { note: body.note } : {}) };
      if (!entity.snapshot().can(event)) {
        throw refuse.gate('consent', `Matter ${id} is ${facts.consumerPattern}: it cannot pass intake until the Client's consent is journaled (POST /matters/${id}/consent with actor "client")`);
      }
      await this.supervisor.commit(entity, [event]);
      return { entity, committed: { advanceTo: stageOf(entity), by: 'gate' } };
    });
  }

  /** Posts the reserved act as a Gig; a fixture Client's answer lands in the same commit. */
  private async escalate(entity: MatterEntity): Promise<AdvanceResult> {
    const facts = factsOf(entity);
    const reservedAct: ReservedAct = statusOf(entity) === 'review' ? 'sign' : 'file';
    let posted;
    try {
      posted = await this.supply.post({ matterId: entity.id, reservedAct, rail: facts.rail, matterType: facts.matterType, clientFixture: facts.clientFixture });
    } catch (error) {
      if (error instanceof SupplyRefused) throw refuse.supplyRefused(`the supply network refused the Gig for the reserved act ${reservedAct} of Matter ${entity.id}: ${error.message}; nothing was written, advance again to retry`, { matterId: entity.id, reservedAct });
      throw error;
    }
    const events: MatterEvent[] = [{ type: 'ESCALATE', gigId: posted.gigId }];
    let answered: string | undefined;
    if (posted.answer) {
      const answer = await this.answerEvents(entity.grain, posted.gigId, reservedAct, facts.rail, posted.answer);
      events.push(...answer);
      if (answer.length) answered = posted.answer.outcome;
    }
    await this.supervisor.commit(entity, events);
    return { entity, escalated: { reservedAct, gigId: posted.gigId, ...(answered ? { answered } : {}) } };
  }

  /** The machine events for a Signer's answer that the registry lets through. */
  private async answerEvents(grain: string, gigId: string, act: ReservedAct, rail: Rail, answer: ImmediateAnswer): Promise<MatterEvent[]> {
    if (answer.outcome === 'declined') return [{ type: 'GIG_DECLINED', gigId, memo: answer.memo, signedBy: answer.signedBy }];
    const verdict = await this.signersOf(grain).verify(answer.attestation.signedBy, answer.attestation.credentialRef);
    if (!verdict.eligible) return [];
    return this.attestedEvents(gigId, act, rail, answer.attestation, answer.receipt);
  }

  /** An attested `file` act carries the filed receipt, and the lifecycle commits `fulfilled` at once. */
  private attestedEvents(gigId: string, act: ReservedAct, rail: Rail, attestation: Attestation, receipt?: string): MatterEvent[] {
    if (act !== 'file') return [{ type: 'GIG_ATTESTED', gigId, attestation }];
    const filed = receipt ?? syntheticReceipt(rail, gigId);
    return [
      { type: 'GIG_ATTESTED', gigId, attestation, receipt: filed },
      { type: 'FILE_RECEIPT', receipt: filed },
    ];
  }

  /**
   * An order mints a patent-rail provisional Matter and advances it until it
   * waits on a Signer or can go no further. The inventor is the Client: used to
   * pick a fixture's behaviour, never stored. A refused Gig post is a 502 that
   * names the Matter, whose earlier commits stand.
   */
  async order(grain: string, body: { mint: string; offer: string; title: string; inventor: string; listFeeUsd: number; clientState?: string }) {
    let entity = await this.create(grain, {
      matterType: ORDER_MATTER_TYPE,
      rail: RAIL_OF[ORDER_MATTER_TYPE],
      consumerPattern: 'B2A',
      mint: body.mint,
      offer: body.offer,
      listFeeUsd: body.listFeeUsd,
      client: { name: body.inventor },
      asset: { kind: DEFAULT_ASSET_KIND[ORDER_MATTER_TYPE], title: body.title },
      ...(body.clientState ? { clientState: body.clientState } : {}),
    });
    for (;;) {
      const status = statusOf(entity);
      if (status === 'waiting_on_signer' || status === 'needs_client_direction' || isTerminal(status)) return { entity };
      try {
        // The live entity may have been passivated in between: follow the one advance used.
        entity = (await this.advance(grain, entity.id, { by: 'order' })).entity;
      } catch (error) {
        if (error instanceof Refusal && error.status !== 502) return { entity, stoppedBy: error.toBody() };
        throw error;
      }
    }
  }

  consent(grain: string, id: string, body: { actor: string; scope: string }): Promise<{ entity: MatterEntity; consentSeq: number }> {
    return this.run(grain, id, async (entity) => {
      refuseUnlessWritable(entity);
      if (body.actor !== 'client') {
        throw refuse.unprocessable('ACTOR_NOT_CLIENT', `consent requires actor "client"; "${body.actor}" cannot consent for the Client`, { rule: 'consent' });
      }
      const [written] = await this.supervisor.commit(entity, [{ type: 'CONSENT', actor: body.actor, scope: body.scope }]);
      return { entity, consentSeq: written.seq };
    });
  }

  /**
   * Applies a Signer's answer. A signed callback (`delivery`, the top level's)
   * is applied at most once: a retry of one already accepted is answered with
   * the Matter as that acceptance left it (`replayed`), writing nothing.
   */
  gigResult(grain: string, id: string, body: GigResultRequest, delivery?: Delivery): Promise<{ entity: MatterEntity; replayed?: true }> {
    return this.run(grain, id, async (entity) => {
      if (delivery) {
        const answered = await acceptedBefore(this.supervisor.journal, delivery, id);
        if (answered !== null) return { entity: asOf(entity, answered), replayed: true };
      }
      refuseUnlessWritable(entity);
      const pending = contextOf(entity).pendingGig;
      if (!pending) throw refuse.conflict('NO_PENDING_GIG', `Matter ${id} holds no pending Gig (it is ${statusOf(entity)})`);
      if (pending.gigId !== body.gigId) {
        throw refuse.conflict('GIG_MISMATCH', `gig ${body.gigId} is not the pending Gig of Matter ${id}; the network holds ${pending.gigId}`, { pendingGigId: pending.gigId });
      }
      const signedBy = body.attestation?.signedBy;
      if (body.outcome === 'attested') requireAttestation(body.attestation);
      else if (!body.memo?.trim()) {
        throw refuse.gate(body.outcome === 'send_back' ? 'defects' : 'memo', body.outcome === 'send_back' ? 'send_back requires a memo noting the defects found in the paid review' : 'declined requires a memo: a Declination is worded');
      }
      // The callback's outcome applies only for a Signer who verifies eligible, fresh at call time.
      if (signedBy !== undefined) {
        const verdict = await this.signersOf(entity.grain).verify(signedBy, body.attestation?.credentialRef);
        if (!verdict.eligible) {
          throw refuse.unprocessable(`SIGNER_${verdict.predicate.toUpperCase()}`, `${verdict.error}; the Gig stays pending`, { rule: 'attestation', predicate: verdict.predicate, cure: verdict.cure, pendingGigId: pending.gigId });
        }
      }
      const facts = factsOf(entity);
      const events: MatterEvent[] =
        body.outcome === 'attested'
          ? this.attestedEvents(pending.gigId, pending.reservedAct, facts.rail, body.attestation as Attestation, body.receipt)
          : body.outcome === 'send_back'
            ? [{ type: 'GIG_SENT_BACK', gigId: pending.gigId, memo: body.memo!, ...(signedBy ? { signedBy } : {}) }]
            : [{ type: 'GIG_DECLINED', gigId: pending.gigId, memo: body.memo!, ...(signedBy ? { signedBy } : {}) }];
      try {
        await this.supervisor.commit(entity, events, delivery ? { alsoWrite: (version) => [callbackRecord(this.supervisor, delivery, id, version)] } : {});
      } catch (error) {
        // The same callback was accepted meanwhile, in another mailbox or process: nothing of this one was written.
        if (!(delivery && error instanceof VersionConflict && error.stream === callbackStream(delivery.webhookId))) throw error;
        const answered = await acceptedBefore(this.supervisor.journal, delivery, id);
        return { entity: asOf(entity, answered!), replayed: true };
      }
      return { entity };
    });
  }

  /**
   * Journals the Client's direction. It is never blocked on Tenant-sourced
   * grounds; after a Declination it reopens the Matter and a fresh Gig posts.
   * A refused post does not undo the direction: it is reported beside it.
   */
  clientDirection(grain: string, id: string, body: { instruction: string; authorizes?: Record<string, unknown> }) {
    return this.run(grain, id, async (entity) => {
      refuseUnlessWritable(entity);
      const reopens = statusOf(entity) === 'needs_client_direction';
      const [written] = await this.supervisor.commit(entity, [{ type: 'CLIENT_DIRECTION', instruction: body.instruction, ...(body.authorizes ? { authorizes: body.authorizes } : {}) }]);
      let escalated: AdvanceResult['escalated'];
      let escalation: Record<string, unknown> | undefined;
      if (reopens) {
        try {
          escalated = (await this.escalate(entity)).escalated;
        } catch (error) {
          if (!(error instanceof Refusal)) throw error;
          escalation = { refused: error.toBody() };
        }
      }
      return { entity, directionSeq: written.seq, escalated, escalation };
    });
  }

  terminal(grain: string, id: string, body: { outcome: 'withdrawn' | 'lapsed' | 'referred_out'; byClient?: boolean; confirmedUnresponsiveTwice?: boolean; referredTo?: string; note?: string }) {
    return this.run(grain, id, async (entity) => {
      refuseUnlessWritable(entity);
      const status = statusOf(entity);
      if (status === 'waiting_on_signer') throw waitingOnSigner(entity);
      const note = body.note ? { note: body.note } : {};
      let event: MatterEvent;
      if (body.outcome === 'withdrawn') {
        if (body.byClient !== true) throw refuse.gate('actor', 'withdrawal requires byClient: true; only the Client can withdraw, never an agent or a Tenant on its behalf');
        event = { type: 'WITHDRAW', byClient: true, ...note };
      } else if (body.outcome === 'lapsed') {
        if (body.confirmedUnresponsiveTwice !== true) throw refuse.gate('predicate', 'lapsed requires confirmedUnresponsiveTwice: true');
        event = { type: 'LAPSE', confirmedUnresponsiveTwice: true, ...note };
      } else {
        if (!body.referredTo?.trim()) throw refuse.gate('predicate', 'referred_out requires referredTo naming where the Matter goes');
        event = { type: 'REFER_OUT', referredTo: body.referredTo, ...note };
      }
      const [written] = await this.supervisor.commit(entity, [event]);
      return { entity, terminal: { outcome: body.outcome, seq: written.seq, at: written.at } };
    });
  }

  recordDocument(grain: string, id: string, body: { name: string; kind: string; sha256: string }) {
    return this.run(grain, id, async (entity) => {
      if (isTerminal(statusOf(entity))) throw refuse.conflict('MATTER_TERMINAL', `Matter ${id} is ${statusOf(entity)}: its file is closed`);
      const document = { id: newId('doc'), matterId: id, name: body.name, kind: body.kind, sha256: body.sha256 };
      await this.supervisor.commit(entity, [{ type: 'RECORD_DOCUMENT', document }]);
      return document;
    });
  }

  /** One page of the grain's Matters, oldest first, optionally narrowed. */
  async list(grain: string, query: { filter?: string; tag?: string; after?: number; limit: number }) {
    const out: MatterEntity[] = [];
    for await (const head of eachStreamHead(this.supervisor.journal, grain, MATTER.openedKind, query.after)) {
      if (query.tag !== undefined && head.data.matterType !== query.tag) continue;
      if (query.filter !== undefined && head.data.offer !== query.filter) continue;
      const entity = await this.supervisor.load(MATTER, head.stream);
      if (entity) out.push(entity);
      if (out.length === query.limit) return { matters: out, nextAfter: head.seq };
    }
    return { matters: out, nextAfter: null };
  }
}

/** The Matter as it stood at `version` of its stream: a fold of that prefix, for answering as an earlier moment did. */
function asOf(entity: MatterEntity, version: number): MatterEntity {
  return version === entity.version ? entity : new Entity(MATTER, entity.journal.slice(0, version));
}

function notFound(id: string) {
  return refuse.notFound('MATTER_NOT_FOUND', `Matter ${id} does not exist here`, { matterId: id });
}

function waitingOnSigner(entity: MatterEntity) {
  const gig = contextOf(entity).pendingGig!;
  return refuse.conflict('MATTER_WAITING_ON_SIGNER', `Matter ${entity.id} is waiting_on_signer: the reserved act ${gig.reservedAct} is with the supply network as Gig ${gig.gigId}; it moves when the Signer answers`, { matterId: entity.id, pendingGigId: gig.gigId });
}

/** Any journal-writing door on a terminal Matter answers 409: a terminal is forever. */
function refuseUnlessWritable(entity: MatterEntity) {
  const status = statusOf(entity);
  if (isTerminal(status)) throw refuse.conflict('MATTER_TERMINAL', `Matter ${entity.id} is ${status}: a terminal is forever`, { matterId: entity.id, status });
}

function refuseUnlessAdvanceable(entity: MatterEntity) {
  const status = statusOf(entity);
  if (status === 'waiting_on_signer') throw waitingOnSigner(entity);
  if (status === 'needs_client_direction') {
    throw refuse.conflict('MATTER_NEEDS_CLIENT_DIRECTION', `Matter ${entity.id} was stopped by a Declination: it is final until the Client speaks (POST /matters/${entity.id}/client-direction)`, { matterId: entity.id });
  }
}

function requireAttestation(a: Partial<Attestation> | undefined): asserts a is Attestation {
  if (!a || !a.signedBy || !a.credentialRef || !a.artifactHash) {
    throw refuse.gate('attestation', 'attested requires an Attestation with signedBy, credentialRef and artifactHash');
  }
  if (!CREDENTIAL_REF.test(a.credentialRef)) throw refuse.gate('attestation', `attestation.credentialRef must be "<registry>:<number>", got "${a.credentialRef}"`);
  if (!ARTIFACT_HASH.test(a.artifactHash)) throw refuse.gate('attestation', 'attestation.artifactHash must be "sha256:" followed by 64 lowercase hex characters');
}
