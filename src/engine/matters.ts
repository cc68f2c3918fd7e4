/**
 * The Matter commands. Each is decided by the decider beside the machine
 * (`machines/matter.decide.ts`) and run by the command handler
 * (`handle-command.ts`): in the Matter's mailbox, refused without writing or
 * committed. The Gate's mechanics and merits and the Signer registry are
 * asked here, where their ports are, and their verdicts handed to the
 * decider. A reserved act's Gig is journaled as an intent with the commit
 * that escalates it, then posted by the outbox, still in the mailbox.
 */
import { advanceable, decideAdvance, decideClientDirection, decideConsent, decideDocument, decideGigAnswer, decideTerminal, type GigAnswer, type TerminalCommand } from '../../machines/matter.decide.ts';
import { MATTER_MACHINE_VERSION, matterMachine, type ReservedAct, type StageVerb, type Terminal } from '../../machines/matter.ts';
import { isConflictParty, clientFixtureOf } from '../domain/fixtures.ts';
import { mechanicsRefusal, mechanicsVerdict, meritsVerdict, type Guardrails } from '../domain/gate.ts';
import { sha256Hex } from '../domain/hash.ts';
import { newId } from '../domain/ids.ts';
import { deriveJurisdiction } from '../domain/jurisdiction.ts';
import { DEFAULT_ASSET_KIND, ORDER_MATTER_TYPE, RAIL_OF } from '../domain/matter-types.ts';
import { factsOf, type MatterFacts, type MatterState } from '../domain/matter-view.ts';
import { Refusal } from '../domain/refusal.ts';
import { refusal } from '../domain/refusals.ts';
import type { SignerRegistry } from '../domain/signer-registry.ts';
import { SupplyRefused, syntheticReceipt, type SupplyNetwork } from '../domain/supply-network.ts';
import { eachEntityHead, type JournalEvent, type StreamWrite } from '../journal/store.ts';
import type { CreateMatterBody, GigResultBody } from '../schemas/matters.ts';
import { Entity } from './entity.ts';
import { fixturesApply } from './grains.ts';
import type { Command, CommandHandler, DecidedEntity } from './handle-command.ts';
import type { Attempt, Consumer, Outbox } from './outbox.ts';
import { acceptedBefore, callbackRecord, type Delivery } from './supply-callbacks.ts';
import type { Supervisor } from './supervisor.ts';
import { orUnreadable, type Unreadable } from './unreadable.ts';

export const MATTER: DecidedEntity<typeof matterMachine> = {
  openedKind: 'matter.opened',
  machine: matterMachine,
  version: MATTER_MACHINE_VERSION,
  notFound: (id) => refusal('MATTER_NOT_FOUND', { matterId: id }, { matterId: id }),
  versionMismatch: (id, expected, current) => refusal('VERSION_MISMATCH', { record: `Matter ${id}`, expected, current }, { matterId: id, currentVersion: current }),
};
export type MatterEntity = Entity<typeof matterMachine>;

/** What opening a Matter takes, as its schema states it (a Tenant's mint has resolved its Offer into `matterType` by then). */
export type MintRequest = CreateMatterBody;

/** Extra streams written in the same transaction as a new Matter (its Asset's ladder, ...). */
export type MintExtension = (ctx: { grain: string; matterId: string; assetId: string; request: MintRequest; facts: MatterFacts }) => StreamWrite[];

export interface AdvanceResult {
  entity: MatterEntity;
  committed?: { advanceTo: StageVerb | Terminal; by: string };
  /** The Gig journaled for a reserved act; `answered` when the network answered its post at once, `pending` while the post waits for a retry. */
  escalated?: { reservedAct: ReservedAct; gigId: string; answered?: string; pending?: string };
}

/** A Matter just opened, as its create answers it: the Matter, its Asset's minting, and the other entities its transaction opened (its Asset's ladder), by id. */
export interface Created {
  entity: MatterEntity;
  minted: JournalEvent;
  opened: (id: string) => Entity | undefined;
}

/** An advance that committed a stage: the commit journaled one `stage` fact, naming the stage the Gate committed. */
const committedAnswer = (entity: MatterEntity, written: JournalEvent[]): AdvanceResult => ({ entity, committed: { advanceTo: written[0].verb as StageVerb, by: 'gate' } });

/** A Signer's answer to a pending Gig, as its schema states it (the supply network's answer to a post is put in the same shape). */
export type GigResultRequest = GigResultBody;

type Escalated = NonNullable<AdvanceResult['escalated']>;

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
    private readonly commands: CommandHandler,
    private readonly supply: SupplyNetwork,
    private readonly outbox: Outbox,
    /** The Signer registry a grain's results are verified against: the fixtures' in a sandbox, the registered Signers' at the top level. */
    private readonly signersOf: (grain: string) => SignerRegistry,
  ) {
    outbox.consume('gig.posted', this.gigPoster);
  }

  /** Opens a Matter in `intake` and mints its Asset, in one transaction. */
  async create(grain: string, request: MintRequest): Promise<MatterEntity> {
    const rail = RAIL_OF[request.matterType];
    if (request.rail !== undefined && request.rail !== rail) {
      throw refusal('RAIL_MISMATCH', { matterType: request.matterType, rail, asked: request.rail });
    }
    const matterId = newId('mt');
    const assetId = newId('as');
    const jurisdiction = deriveJurisdiction({ rail, matterType: request.matterType, clientState: request.clientState });
    const mechanics = mechanicsRefusal({ listFeeUsd: request.listFeeUsd, jurisdiction }, request.tenantGuardrails, await this.grainGuardrails?.(grain));
    if (mechanics) throw mechanics;
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
    // The answer said before the transaction lands (under an Idempotency-Key: `engine/idempotency.ts`): the Matter and everything it opens, as they will stand.
    const ahead = (opened: (id: string) => Entity | undefined, written: JournalEvent[]): Created => ({ entity: opened(matterId) as MatterEntity, minted: written.find((e) => e.stream === assetId)!, opened });
    const { entity, written } = await this.supervisor.open(
      MATTER,
      grain,
      matterId,
      { consumerPattern: facts.consumerPattern },
      { kind: 'matter.opened', verb: 'intake', by: 'gate', note: `Matter opened in intake; Asset ${assetId} minted`, data: facts as unknown as Record<string, unknown> },
      alsoWrite,
      ahead,
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
    if (!entity) throw MATTER.notFound(id);
    return entity;
  }

  /**
   * Advances to the next stage, or escalates the reserved act as a Gig: the
   * escalation is journaled with the Gig's id, then the Gig is posted from
   * the journal (the outbox) and the advance answers what that first post
   * brought.
   */
  advance(grain: string, id: string, body: { merits?: Record<string, unknown>; note?: string; by?: string } = {}, expectedVersion?: number): Promise<AdvanceResult> {
    return this.commands.handle(MATTER, grain, id, {
      expectedVersion,
      decide: async (matter) => decideAdvance(matter, { by: body.by ?? 'agent', note: body.note, gigId: newId('gig'), gate: await this.gate(grain, matter, body.merits) }),
      reply: async (matter, written) => {
        const escalated = await this.escalation(matter, written);
        // Else the commit journaled one `stage` fact, naming the stage the Gate committed.
        return escalated ? { entity: matter, escalated } : committedAnswer(matter, written);
      },
      // A stage commit answers what it committed, known before it lands; an escalation answers what the Gig's post brought.
      ahead: (matter, written) => (written.some((e) => e.kind === 'gig.posted') ? undefined : committedAnswer(matter, written)),
    });
  }

  /** The Gate's verdict on an advance: the Matter's mechanics against its own and its grain's Tenant Guardrails, then the merits proposed against its Client Mandates. The inspection asks it too (with no merits proposed). */
  async gate(grain: string, matter: MatterState, merits: Record<string, unknown> | undefined) {
    const facts = factsOf(matter);
    return mechanicsVerdict({ listFeeUsd: facts.listFeeUsd, jurisdiction: facts.jurisdiction }, facts.tenantGuardrails, await this.grainGuardrails?.(grain)) ?? meritsVerdict(merits, facts.clientMandates);
  }

  /**
   * Posts the Gig a commit journaled (an escalation), from the journal, and
   * says how the post went; undefined when the commit escalated nothing. The
   * caller holds the Matter's mailbox, so an answer the network gives at
   * once (a fixture Client's Signer) lands before any other command to it.
   */
  private async escalation(matter: MatterEntity, written: JournalEvent[]): Promise<Escalated | undefined> {
    const intent = written.find((e) => e.kind === 'gig.posted');
    if (!intent) return undefined;
    const { reservedAct, gigId } = intent.data as { reservedAct: ReservedAct; gigId: string };
    const attempt = (await this.outbox.deliver(intent, (i) => this.postGig(i, matter))) as Attempt<string>;
    if (!attempt.delivered) return { reservedAct, gigId, pending: `the supply network has not taken the Gig yet (${attempt.reason}); it is journaled and its post is retried, and the Matter waits on its Signer meanwhile` };
    return { reservedAct, gigId, ...(attempt.answer ? { answered: attempt.answer } : {}) };
  }

  /** The outbox's consumer of Gig intents journaled before a restart, or whose first post failed. */
  private readonly gigPoster: Consumer = {
    idOf: (intent) => intent.data.gigId as string,
    deliver: (intent) => this.postGig(intent),
  };

  /**
   * Posts a Gig with its journaled id (the network's idempotency key) and
   * applies an answer the network gives at once: to `held`, when the caller
   * holds the Matter's mailbox, else through it. An answer the Matter no
   * longer takes (it moved on, or the Signer does not verify) is not
   * applied; the post stands.
   */
  private async postGig(intent: JournalEvent, held?: MatterEntity): Promise<Attempt> {
    const entity = held ?? (await this.supervisor.load(MATTER, intent.stream));
    if (!entity) return { delivered: false, reason: `Matter ${intent.stream} cannot be loaded` };
    const facts = factsOf(entity);
    const gigId = intent.data.gigId as string;
    let posted;
    try {
      posted = await this.supply.post({ gigId, matterId: entity.id, reservedAct: intent.data.reservedAct as ReservedAct, rail: facts.rail, matterType: facts.matterType, clientFixture: facts.clientFixture });
    } catch (error) {
      if (error instanceof SupplyRefused) return { delivered: false, reason: `the supply network refused the Gig: ${error.message}` };
      throw error;
    }
    const answer = posted.answer;
    if (!answer) return { delivered: true };
    const body: GigResultRequest =
      answer.outcome === 'attested' ? { gigId, outcome: 'attested', attestation: answer.attestation, receipt: answer.receipt } : { gigId, outcome: 'declined', memo: answer.memo, attestation: { signedBy: answer.signedBy } };
    const command = this.answerCommand(entity.id, body);
    const apply = held ? this.commands.run(MATTER, held, command) : this.commands.handle(MATTER, entity.grain, entity.id, command);
    const applied = await apply.then(
      () => true,
      (error) => (error instanceof Refusal ? false : Promise.reject(error)),
    );
    return { delivered: true, ...(applied ? { answer: answer.outcome } : {}) };
  }

  /**
   * An order mints a patent-rail provisional Matter and advances it until it
   * waits on a Signer or can go no further. The inventor is the Client: used to
   * pick a fixture's behaviour, never stored.
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
    while (advanceable(entity.snapshot())) {
      try {
        // The live entity may have been passivated in between: follow the one advance used.
        entity = (await this.advance(grain, entity.id, { by: 'order' })).entity;
      } catch (error) {
        if (error instanceof Refusal) return { entity, stoppedBy: error.toBody() };
        throw error;
      }
    }
    return { entity };
  }

  consent(grain: string, id: string, body: { actor: string; scope: string }, expectedVersion?: number): Promise<{ entity: MatterEntity; consentSeq: number }> {
    return this.commands.handle(MATTER, grain, id, {
      expectedVersion,
      decide: (matter) => decideConsent(matter, body),
      reply: (matter, [consent]) => ({ entity: matter, consentSeq: consent.seq }),
    });
  }

  /**
   * Applies a Signer's answer. A signed callback (`delivery`, the top level's)
   * is applied at most once: a retry of one already accepted is answered with
   * the Matter as that acceptance left it (`replayed`), writing nothing.
   */
  gigResult(grain: string, id: string, body: GigResultRequest, delivery?: Delivery, expectedVersion?: number): Promise<{ entity: MatterEntity; replayed?: true }> {
    return this.commands.handle(MATTER, grain, id, { expectedVersion, ...this.answerCommand(id, body, delivery) });
  }

  /**
   * A Signer's answer as a command: decided with the Signer registry's
   * verdict on the Signer it names, asked fresh and only about an answer the
   * Matter takes. A signed callback's record is written with it, and a
   * callback already accepted is answered as it was then.
   */
  private answerCommand(id: string, body: GigResultRequest, delivery?: Delivery): Command<typeof matterMachine, { entity: MatterEntity; replayed?: true }> {
    const signedBy = body.attestation?.signedBy;
    return {
      ...(delivery && {
        answered: async (matter) => {
          const version = await acceptedBefore(this.supervisor.journal, delivery, id);
          return version === null ? null : { entity: asOf(matter, version), replayed: true as const };
        },
        alsoWrite: (version) => [callbackRecord(this.supervisor, delivery, id, version)],
      }),
      decide: async (matter) => {
        const answer: GigAnswer = { ...body, receipt: body.receipt ?? syntheticReceipt(factsOf(matter).rail, body.gigId) };
        const decision = decideGigAnswer(matter, answer);
        if (!('send' in decision) || signedBy === undefined) return decision;
        return decideGigAnswer(matter, { ...answer, signer: await this.signersOf(matter.grain).verify(signedBy, body.attestation?.credentialRef) });
      },
      reply: (matter) => ({ entity: matter }),
    };
  }

  /**
   * Journals the Client's direction. It is never blocked on Tenant-sourced
   * grounds; after a Declination it reopens the Matter before the declined
   * act, and a fresh Gig is journaled in the same commit and posted
   * (`escalated`); a post the network refuses is pending and retried, and
   * the direction stands whatever it says.
   */
  clientDirection(grain: string, id: string, body: { instruction: string; authorizes?: Record<string, unknown> }, expectedVersion?: number): Promise<{ entity: MatterEntity; directionSeq: number; escalated?: Escalated }> {
    return this.commands.handle(MATTER, grain, id, {
      expectedVersion,
      decide: (matter) => decideClientDirection(matter, { ...body, gigId: newId('gig') }),
      reply: async (matter, written) => {
        const escalated = await this.escalation(matter, written);
        return { entity: matter, directionSeq: written[0].seq, ...(escalated ? { escalated } : {}) };
      },
    });
  }

  terminal(grain: string, id: string, body: TerminalCommand, expectedVersion?: number) {
    return this.commands.handle(MATTER, grain, id, {
      expectedVersion,
      decide: (matter) => decideTerminal(matter, body),
      reply: (matter, [ended]) => ({ entity: matter, terminal: { outcome: body.outcome, seq: ended.seq, at: ended.at } }),
    });
  }

  recordDocument(grain: string, id: string, body: { name: string; kind: string; sha256: string }, expectedVersion?: number) {
    const document = { id: newId('doc'), matterId: id, name: body.name, kind: body.kind, sha256: body.sha256 };
    return this.commands.handle(MATTER, grain, id, {
      expectedVersion,
      decide: (matter) => decideDocument(matter, document),
      reply: () => document,
    });
  }

  /**
   * One page of the grain's Matters, oldest first, optionally narrowed: each
   * Matter's state as its snapshot row holds it (one query a page). A Matter
   * whose stream cannot be read takes its place on the page as `Unreadable`.
   */
  async list(grain: string, query: { filter?: string; tag?: string; after?: number; limit: number }) {
    const out: Array<MatterState | Unreadable> = [];
    // Unfiltered, the page takes exactly the heads it reads; a filter may skip some, so it reads ahead.
    const filtered = query.tag !== undefined || query.filter !== undefined;
    for await (const head of eachEntityHead(this.supervisor.journal, grain, MATTER.openedKind, query.after, filtered ? undefined : query.limit)) {
      // An opening that does not read cannot say its type or offer: it is listed, as unreadable, rather than hidden.
      if (!head.unreadable && query.tag !== undefined && head.opened.data.matterType !== query.tag) continue;
      if (!head.unreadable && query.filter !== undefined && head.opened.data.offer !== query.filter) continue;
      const state = await orUnreadable(head.opened.stream, () => this.supervisor.stateOf(MATTER, head));
      if (state) out.push(state);
      if (out.length === query.limit) return { matters: out, nextAfter: head.opened.seq };
    }
    return { matters: out, nextAfter: null };
  }
}

/** The Matter as it stood at `version` of its stream: a fold of that prefix, for answering as an earlier moment did. */
function asOf(entity: MatterEntity, version: number): MatterEntity {
  return version === entity.version ? entity : new Entity(MATTER, entity.journal.slice(0, version));
}
