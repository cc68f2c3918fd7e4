/**
 * The listed capability catalog. Mounted at the top level and inside sandbox
 * workspaces (same routes, same envelopes). Every route of the catalog data
 * (`domain/capabilities/catalog.ts`) is served here, and a test holds the two
 * equal.
 *
 * - Reads answer typed results from the synthetic data set, with
 *   `meta{gate, effect, metered}`. Nothing meters in this preview (the SKU
 *   catalog is empty), and a not-found never would.
 * - `requiresAccess` doors answer 403 BLOCKED naming the access: no credential
 *   for a restricted upstream is live, and BLOCKED is never degraded.
 * - Record routes journal a draft artifact's metadata (its sha256, never its
 *   text) and answer the artifact; nothing in it is legal advice.
 * - Unreserved acts complete on a simulated registry and journal their receipt.
 * - `requiresSigner` acts are posted to the supply network as a Gig and answer
 *   the typed pending state: the service never performs a reserved act.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { TSchema } from '@sinclair/typebox';
import type { ContextConfigDefault, FastifyInstance, FastifyRequest, FastifySchema, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault, RouteGenericInterface, RouteHandlerMethod } from 'fastify';
import { accessBlocked } from '../../domain/access.ts';
import { capabilityAt, gateView, type Capability } from '../../domain/capabilities/catalog.ts';
import { citedBy, DATASET_AS_OF, entityOf, familyOf, patentOf, PATENTS, patentSummary, searchPatents, trademarkOf, uccFilingOf, type PatentRecord } from '../../domain/capabilities/dataset.ts';
import * as drafts from '../../domain/capabilities/drafts.ts';
import { newId } from '../../domain/ids.ts';
import { identifier, identifierRefusal, patentNumber, resolvePatent } from '../../domain/identifiers.ts';
import { refusal } from '../../domain/refusals.ts';
import { refused } from '../declared-refusals.ts';
import { listed, ok } from '../envelopes.ts';
import { resolveGrain } from '../grain.ts';
import { ActBodies, ActResponse, DocketParams, EntityParams, PARAM_EXAMPLES, PatentParams, PendingResponse, ReadResponses, RecordBodies, RecordResponse, SearchQuery, TrademarkParams, UccParams } from '../schemas/capabilities.ts';
import type { Services } from '../services.ts';
import { sha256Hex } from '../../domain/hash.ts';

/** A catalog route's handler, its request and reply typed from the route's TypeBox schema `S`. */
type Handler<S extends FastifySchema> = RouteHandlerMethod<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, RouteGenericInterface, ContextConfigDefault, S, TypeBoxTypeProvider>;
/** The body a route whose body schema is `B` hands its handler. */
type BodyOf<B extends TSchema> = Parameters<Handler<{ body: B }>>[0]['body'];

/** A capability's name in answers, refusals and the journal (`POST /patent/ids`). */
const nameOf = (c: Capability) => `${c.method} ${c.path}`;

/** An act's posted price: every act of the catalog posts one, which `paid` checks as the routes register. */
function priceOf(c: Capability): number {
  if (c.priceUsd === undefined) throw new Error(`${nameOf(c)} is listed as an act without its price`);
  return c.priceUsd;
}

/** What a capability does, for its operation's description. */
function describe(c: Capability): string {
  if (c.gate.kind === 'requiresAccess') return `${c.purpose}. BLOCKED to every caller until the restricted upstream's credential (${c.gate.access}) is live: it is never degraded to a partial answer.`;
  if (c.effect === 'read') return `${c.purpose}, from the synthetic data set (its date is in \`meta.asOf\`). A read: keyless, and it never meters; a record not in the data set is a typed EMPTY 404.`;
  if (c.effect === 'record') return `${c.purpose}: a draft artifact (markdown) with its sha256; the journal keeps only its metadata. Not legal advice.`;
  if (c.gate.kind === 'requiresSigner') return `${c.purpose}. Reserved to a licensed human: posted to the supply network as a Gig (202), and a Signer holding ${c.gate.credential} performs it, never the service. A paid act at its posted price ($${c.priceUsd}), counted against the key's spend ceiling.`;
  return `${c.purpose}, completed on the simulated registry (the preview files nothing live). A paid act at its posted price ($${c.priceUsd}), counted against the key's spend ceiling.`;
}

/** A read of a record the data set does not hold. */
const NOT_IN_DATASET = (code: 'PATENT_NOT_FOUND' | 'TRADEMARK_NOT_FOUND' | 'ENTITY_NOT_FOUND' | 'UCC_FILING_NOT_FOUND') => refused('a typed EMPTY: no such record in the synthetic data set (never meters)', [code]);
/** An entity name without the suffix its type requires: the suffixes that type takes (`accepted`), and the name with the first of them as the fix. */
function nameSuffixRefusal(b: { entityName: string; entityType: 'llc' | 'corporation' }, door: 'docs' | 'form') {
  const accepted = drafts.NAME_SUFFIXES[b.entityType];
  return refusal('ENTITY_NAME_SUFFIX', { entityName: b.entityName, entityType: b.entityType, door }, { field: 'body.entityName', accepted: [...accepted], fix: `end "body.entityName" with one of the suffixes \`accepted\` lists, e.g. ${JSON.stringify(`${b.entityName.trim()} ${accepted[0]}`)}` });
}
const NAME_SUFFIX = refused('the entity name lacks the suffix its type needs (an LLC\'s "LLC", a corporation\'s "Inc." or "Corporation")', ['ENTITY_NAME_SUFFIX']);
const TAKEN = refused('this act was already taken', ['ACT_ALREADY_TAKEN']);
/** A patent number, trademark serial or state the identifier reader cannot read: the refusal lists the accepted forms. */
const UNREADABLE_ID = refused('an identifier (patent number, trademark serial, state) is in no form the service reads: `accepted` lists the forms', ['IDENTIFIER_UNRECOGNIZED']);
/** The refusals of each completed act beside its schema's. */
const ACT_REFUSALS = {
  '/entity/de/form': { 409: TAKEN, 422: NAME_SUFFIX },
  '/patent/file-provisional': { 409: TAKEN },
  '/patent/pay-maintenance': {
    404: NOT_IN_DATASET('PATENT_NOT_FOUND'),
    422: UNREADABLE_ID,
    409: refused('the window is not open, or this window was already paid', ['MAINTENANCE_WINDOW_NOT_OPEN', 'MAINTENANCE_ALREADY_PAID', 'ACT_ALREADY_TAKEN']),
  },
  '/patent/file-utility': {},
  '/patent/record-assignment': {},
  '/trademark/file-oa-response': {},
  '/demand-letter/send': {},
  '/contract/advise': {},
} satisfies Record<keyof typeof ActBodies, object>;

const metaOf = (c: Capability) => ({ gate: gateView(c.gate), effect: c.effect, metered: false, ...(c.effect === 'read' ? { dataset: 'synthetic', asOf: DATASET_AS_OF } : {}) });

/**
 * The data set's patent `raw` names, read in any accepted form
 * (`domain/identifiers.ts`): a number without a kind code names the one
 * patent with that number. A value that is no patent number is refused with
 * the accepted forms; a number naming several patents, with their numbers.
 */
function patentNamed(c: Capability, field: string, raw: string): PatentRecord {
  const n = patentNumber(field, raw);
  const found = resolvePatent(PATENTS, n);
  if (found.length === 0) throw missing(c, `patent ${n.canonical}`, 'PATENT_NOT_FOUND');
  if (found.length > 1) throw identifierRefusal('patent', field, raw, `names ${found.length} patents in the data set (${found.map((p) => p.number).join(', ')}): add the kind code`);
  return found[0];
}

/** `schema` with its example answer: the examples are built by the code that answers. */
const answering = <T extends object>(schema: T, example: unknown): T => ({ ...schema, examples: [example] });

/** A not-found read: a typed EMPTY that never meters. */
function missing(c: Capability, what: string, code: 'PATENT_NOT_FOUND' | 'TRADEMARK_NOT_FOUND' | 'ENTITY_NOT_FOUND' | 'UCC_FILING_NOT_FOUND') {
  return refusal(code, { what, asOf: DATASET_AS_OF }, { results: [], meta: metaOf(c) });
}


export async function capabilityRoutes(fastify: FastifyInstance, { services }: { services: Services }) {
  // Handlers read their params, query and body, and send their replies, typed from each route's TypeBox schemas.
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.addHook('preHandler', resolveGrain(services));

  /** Registers one catalog route; `schema` documents and validates it, `extra` adds route options drawn from its capability. */
  const route = <S extends FastifySchema>(path: string, method: 'GET' | 'POST', schema: S, handler: (request: Parameters<Handler<S>>[0], reply: Parameters<Handler<S>>[1], c: Capability) => ReturnType<Handler<S>>, extra?: (c: Capability) => Record<string, unknown>) => {
    const c = capabilityAt(method, path);
    app.route<RouteGenericInterface, ContextConfigDefault, S>({ method, url: path, schema: { summary: c.purpose, description: describe(c), tags: ['capabilities'], ...schema }, ...extra?.(c), handler: (request, reply) => handler(request, reply, c) });
  };

  // Each read's example answer is its answer for the examples of its parameters (a patent, a mark, an entity, a filing of the data set).
  const patentRead = (suffix: string, response: object, answer: (p: PatentRecord, c: Capability) => unknown) => {
    const example = answer(patentOf(PARAM_EXAMPLES.number)!, capabilityAt('GET', `/patent/:number${suffix}`));
    route(`/patent/:number${suffix}`, 'GET', { params: PatentParams, response: { 200: answering(response, example), 404: NOT_IN_DATASET('PATENT_NOT_FOUND'), 422: UNREADABLE_ID } }, async (request, _reply, c) => answer(patentNamed(c, 'params.number', request.params.number), c));
  };

  // Reads.
  const search = (q: string, c: Capability) => listed(searchPatents(q), `no patent in the data set matches every word of "${q}"`, { q, meta: metaOf(c) });
  route('/patent/search', 'GET', { querystring: SearchQuery, response: { 200: answering(ReadResponses.search, search(PARAM_EXAMPLES.q, capabilityAt('GET', '/patent/search'))) } }, async (request, _reply, c) => search(request.query.q, c));
  patentRead('', ReadResponses.patent, (p, c) => ok({ patent: { number: p.number, title: p.title, abstract: p.abstract, assignee: p.assignee, inventors: p.inventors, filedOn: p.filedOn, grantedOn: p.grantedOn, cpc: p.cpc }, meta: metaOf(c) }));
  patentRead('/family', ReadResponses.family, (p, c) =>
    ok({ number: p.number, family: { familyId: p.familyId, members: familyOf(p).map((m) => ({ number: m.number, relation: m.relation, title: m.title })) }, meta: metaOf(c) }),
  );
  patentRead('/status', ReadResponses.status, (p, c) => ok({ number: p.number, status: p.status, meta: metaOf(c) }));
  patentRead('/assignment', ReadResponses.assignment, (p, c) => listed(p.assignments, `no assignment of ${p.number} is recorded`, { number: p.number, meta: metaOf(c) }));
  patentRead('/citations', ReadResponses.citations, (p, c) =>
    ok({ number: p.number, cites: p.cites.map((n) => patentSummary(patentOf(n)!)), citedBy: citedBy(p.number).map((n) => patentSummary(patentOf(n)!)), meta: metaOf(c) }),
  );
  patentRead('/ptab', ReadResponses.ptab, (p, c) => listed(p.ptab, `no trial proceeding names ${p.number}`, { number: p.number, meta: metaOf(c) }));
  patentRead('/maintenance', ReadResponses.maintenance, (p, c) => ok({ number: p.number, windows: p.maintenance, meta: metaOf(c) }));

  const trademark = (raw: string, c: Capability) => {
    const serial = identifier('trademark', 'params.serial', raw);
    const t = trademarkOf(serial);
    if (!t) throw missing(c, `trademark serial ${serial}`, 'TRADEMARK_NOT_FOUND');
    return ok({ trademark: t, meta: metaOf(c) });
  };
  route('/trademark/:serial/status', 'GET', { params: TrademarkParams, response: { 200: answering(ReadResponses.trademark, trademark(PARAM_EXAMPLES.serial, capabilityAt('GET', '/trademark/:serial/status'))), 404: NOT_IN_DATASET('TRADEMARK_NOT_FOUND'), 422: UNREADABLE_ID } }, async (request, _reply, c) => trademark(request.params.serial, c));
  const standing = (params: { state: string; id: string }, c: Capability) => {
    const state = identifier('state', 'params.state', params.state);
    const e = entityOf(state, params.id);
    if (!e) throw missing(c, `entity ${params.id} in ${state}`, 'ENTITY_NOT_FOUND');
    return ok({ entity: e, meta: metaOf(c) });
  };
  const entityExample = { state: PARAM_EXAMPLES.state, id: PARAM_EXAMPLES.id };
  route('/entity/:state/:id/standing', 'GET', { params: EntityParams, response: { 200: answering(ReadResponses.entity, standing(entityExample, capabilityAt('GET', '/entity/:state/:id/standing'))), 404: NOT_IN_DATASET('ENTITY_NOT_FOUND'), 422: UNREADABLE_ID } }, async (request, _reply, c) => standing(request.params, c));
  const ucc = (params: { state: string; filing: string }, c: Capability) => {
    const state = identifier('state', 'params.state', params.state);
    const f = uccFilingOf(state, params.filing);
    if (!f) throw missing(c, `UCC filing ${params.filing} in ${state}`, 'UCC_FILING_NOT_FOUND');
    const { filing: number, ...rest } = f;
    return ok({ filing: { ...rest, number }, meta: metaOf(c) });
  };
  const uccExample = { state: PARAM_EXAMPLES.state, filing: PARAM_EXAMPLES.filing };
  route('/lien/ucc/:state/:filing', 'GET', { params: UccParams, response: { 200: answering(ReadResponses.ucc, ucc(uccExample, capabilityAt('GET', '/lien/ucc/:state/:filing'))), 404: NOT_IN_DATASET('UCC_FILING_NOT_FOUND'), 422: UNREADABLE_ID } }, async (request, _reply, c) => ucc(request.params, c));

  // Doors behind a restricted upstream: BLOCKED for every caller, ahead of
  // body checks and of any key (a key cannot open them).
  const blocked = (c: Capability) => async () => {
    if (c.gate.kind === 'requiresAccess') throw accessBlocked(c.gate.access, nameOf(c));
  };
  const blockedResponses = { 403: refused('BLOCKED: the restricted upstream needs a live credential (credential_verified, not live)', ['ACCESS_REQUIRED']) };
  route('/court/:district/:case/docket', 'GET', { params: DocketParams, response: blockedResponses }, async () => undefined, (c) => ({ preValidation: blocked(c) }));
  for (const path of ['/docket-watch', '/patent/docket-watch'] as const) {
    route(path, 'POST', { body: RecordBodies[path], response: blockedResponses }, async () => undefined, (c) => ({
      preValidation: blocked(c),
      config: { keyless: 'blocked to every caller until the practitioner credential is live' },
    }));
  }

  // Records: a draft artifact, its metadata journaled.
  const recordAnswer = (c: Capability, artifact: { id: string } & drafts.Artifact, recordedSeq: number, extra: Record<string, unknown>) =>
    ok({ effect: 'record' as const, gate: 'none' as const, artifact, advice: false as const, notice: drafts.NOT_ADVICE, recordedSeq, meta: metaOf(c), ...(Object.keys(extra).length ? { extra } : {}) });
  const record = <P extends keyof typeof RecordBodies>(path: P, make: NoInfer<(body: BodyOf<(typeof RecordBodies)[P]>) => drafts.Draft>, refusals: Record<number, unknown> = {}) => {
    // The example answer is the draft of the example body, as the door answers it.
    const { kind, title, content, ...extra } = make((RecordBodies[path] as { examples: [BodyOf<(typeof RecordBodies)[P]>] }).examples[0]);
    const example = recordAnswer(capabilityAt('POST', path), { id: 'doc_0k4n8b2v6c1x9z3l7j5h2g8f4', ...drafts.toArtifact({ kind, title, content }) }, 1, extra);
    route(path, 'POST', { body: RecordBodies[path], response: { 201: answering(RecordResponse, example), ...refusals } }, async (request, reply, c) => {
      const { kind, title, content, ...extra } = make(request.body);
      const artifact = { id: newId('doc'), ...drafts.toArtifact({ kind, title, content }) };
      const recordedSeq = await services.catalogActs.record(request.grain, nameOf(c), artifact, provenanceData(request));
      return reply.status(201).send(recordAnswer(c, artifact, recordedSeq, extra));
    });
  };

  record('/patent/draft-claims', drafts.draftClaims);
  record('/patent/draft-spec', drafts.draftSpec);
  record('/patent/prior-art-report', drafts.priorArtReport);
  record('/patent/oa-response', drafts.oaResponseOutline);
  record('/patent/ids', drafts.idsListing);
  record('/trademark/oa-response-draft', (b) => drafts.trademarkOaResponse({ ...b, serial: identifier('trademark', 'body.serial', b.serial) }), { 422: UNREADABLE_ID });
  record('/contract/review', drafts.contractReview);
  record('/demand-letter/draft', drafts.demandLetterDraft);
  record('/entity/de/formation-docs', (b) => {
    if (!drafts.nameSuffixOk(b.entityType, b.entityName)) throw nameSuffixRefusal(b, 'docs');
    return drafts.formationDocs(b);
  }, { 422: NAME_SUFFIX });

  // Unreserved acts: completed on the simulated registry, receipt journaled.
  const paid = (c: Capability) => {
    const priceUsd = priceOf(c);
    return { config: { paidAct: () => ({ priceUsd, act: nameOf(c) }) } };
  };
  const actAnswer = (c: Capability, actId: string, receipt: { id: string; registry: string } & Record<string, unknown>) =>
    ok({ effect: 'act' as const, gate: 'none' as const, status: 'completed' as const, act: { id: actId, route: nameOf(c), priceUsd: priceOf(c) }, receipt: { ...receipt, synthetic: true as const }, preview: true as const, note: 'preview: the act completed on a simulated registry; nothing was filed or paid on a live one', meta: metaOf(c) });
  const act = <P extends keyof typeof ActBodies>(path: P, receiptOf: NoInfer<(body: BodyOf<(typeof ActBodies)[P]>, request: FastifyRequest, c: Capability) => Promise<{ id: string; registry: string; stream?: string } & Record<string, unknown>>>, exampleReceipt: { id: string; registry: string } & Record<string, unknown>) => {
    const example = actAnswer(capabilityAt('POST', path), 'rc_7v1c5x9z3l8k2j6h0g4f8d2s6', exampleReceipt);
    // The act's own refusals ride along untyped: indexed by a generic path, they would leave the reply's type unresolvable; the handler sends only the 201.
    route(path, 'POST', { body: ActBodies[path], response: { 201: answering(ActResponse, example), ...ACT_REFUSALS[path] } as { 201: typeof ActResponse } }, async (request, reply, c) => {
      const { stream, ...receipt } = await receiptOf(request.body, request, c);
      const actId = await services.catalogActs.complete(request.grain, nameOf(c), { priceUsd: c.priceUsd, receipt, stream }, provenanceData(request));
      return reply.status(201).send(actAnswer(c, actId, receipt));
    }, paid);
  };

  const DE_REGISTRY = 'Delaware Division of Corporations (simulated)';
  act('/entity/de/form', async (b) => {
    if (!drafts.nameSuffixOk(b.entityType, b.entityName)) throw nameSuffixRefusal(b, 'form');
    return { id: `DE-${digits(`${b.entityName}/${b.formationDocsSha256}/${newId('rc')}`, 7)}`, registry: DE_REGISTRY, entityName: b.entityName, entityType: b.entityType };
  }, { id: 'DE-4821937', registry: DE_REGISTRY, entityName: 'Cartofold Maps LLC', entityType: 'llc' });
  const PATENT_OFFICE = 'patent office (simulated)';
  act('/patent/file-provisional', async (b) => {
    const n = digits(`${b.title}/${b.specificationSha256}/${newId('rc')}`, 6);
    return { id: `63/${n.slice(0, 3)},${n.slice(3)}`, registry: PATENT_OFFICE, title: b.title, inventors: b.inventors };
  }, { id: '63/482,193', registry: PATENT_OFFICE, title: 'Acoustic leak detector', inventors: ['Chen Ito', 'Dana Ruiz'] });
  const FEE_SYSTEM = 'patent office fee system (simulated)';
  act('/patent/pay-maintenance', async (b, request, c) => {
    const p = patentNamed(c, 'body.patentNumber', b.patentNumber);
    const w = p.maintenance.find((m) => m.window === b.window)!;
    if (w.state !== 'open') {
      throw refusal('MAINTENANCE_WINDOW_NOT_OPEN', { window: w.window, number: p.number, state: w.state, opensOn: w.opensOn, surchargeUntil: w.surchargeUntil }, { window: w });
    }
    // One payment per window and grain: the stream is named by both, so a
    // second payment finds it (and a race loses on the expected version).
    const stream = `maintenance:${request.grain}:${p.number}:${w.window}`;
    if (await services.catalogActs.taken(stream)) throw refusal('MAINTENANCE_ALREADY_PAID', { window: w.window, number: p.number });
    return { id: `MF-${digits(`${stream}/${newId('rc')}`, 8)}`, registry: FEE_SYSTEM, patentNumber: p.number, window: w.window, stream };
  }, { id: 'MF-48219370', registry: FEE_SYSTEM, patentNumber: 'US10000404B2', window: '3.5' });

  // Reserved acts: posted to the supply network as a Gig; a Signer performs them.
  // A body field naming a patent or a mark is read (refused with the accepted forms) before anything is posted.
  const readIdentifiers: Partial<Record<keyof typeof ActBodies, (body: Record<string, unknown>) => void>> = {
    '/patent/record-assignment': (b) => void patentNumber('body.patentNumber', String(b.patentNumber)),
    '/trademark/file-oa-response': (b) => void identifier('trademark', 'body.serial', String(b.serial)),
  };
  const pendingAnswer = (c: Capability, credential: string, actId: string, gigId: string, pending?: string) =>
    ok({
      status: 'waiting_on_signer' as const,
      effect: 'act' as const,
      gate: { requiresSigner: credential },
      act: { id: actId, route: nameOf(c), priceUsd: priceOf(c) },
      gigId,
      ...(pending ? { pending } : {}),
      signer: { routed: true, credential, verification: { mode: 'registry', liveness: 'checked fresh at call time, against the authoritative registry' } },
      eta: 'PT24H' as const,
      then: {
        attestation: 'the Signer attests under their own credential: a frozen, signed Attestation (signedBy, credentialRef, artifactHash)',
        receipt: 'the government receipt of the filing or delivery, once the Signer performs the act',
        webhook: 'outcome.filed: the signed artifact, a verifiable Attestation and the government receipt',
      },
      meta: metaOf(c),
    });
  for (const path of ['/patent/file-utility', '/patent/record-assignment', '/trademark/file-oa-response', '/demand-letter/send', '/contract/advise'] as const) {
    const c = capabilityAt('POST', path);
    if (c.gate.kind !== 'requiresSigner' || !c.reservedAct) throw new Error(`${path} is listed as a reserved act without its Signer gate`);
    const { credential } = c.gate;
    const reservedAct = c.reservedAct;
    const readIds = readIdentifiers[path];
    const example = pendingAnswer(c, credential, 'rc_7v1c5x9z3l8k2j6h0g4f8d2s6', 'gig_3x7k2p9q1m8v4c6n0b5z2r7t1');
    route(path, 'POST', { body: ActBodies[path], response: { 202: answering(PendingResponse, example), 403: refused('BLOCKED: the named Signer\'s credential is not live (suspended credentials are never degraded)', ['SIGNER_CREDENTIAL_NOT_LIVE']), ...(readIds ? { 422: UNREADABLE_ID } : {}) } }, async (request, reply) => {
      const body = request.body;
      readIds?.(body);
      if (body.signerId !== undefined) {
        const verdict = await services.signersOf(request.grain).verify(body.signerId);
        if (!verdict.eligible) {
          throw refusal('SIGNER_CREDENTIAL_NOT_LIVE', { error: verdict.error, credential, cure: verdict.cure }, { predicate: verdict.predicate, credential, cure: verdict.cure });
        }
      }
      const { actId, gigId, pending } = await services.catalogActs.escalate(request.grain, { route: nameOf(c), credential, reservedAct, priceUsd: c.priceUsd, matterType: c.matterType ?? 'patent_assignment', preferredSigner: body.signerId, ...provenanceData(request) });
      return reply.status(202).send(pendingAnswer(c, credential, actId, gigId, pending));
    }, paid);
  }
}

/** `n` decimal digits derived from a seed: synthetic registry numbers. */
function digits(seed: string, n: number): string {
  const h = BigInt(`0x${sha256Hex(seed).slice(0, 15)}`);
  return (h % 10n ** BigInt(n)).toString().padStart(n, '0');
}

/** X-Actor / X-Mandate, journaled as provenance only (never verified). */
function provenanceData(request: FastifyRequest) {
  const p = request.access?.provenance;
  return p ? { callerProvenance: p } : {};
}
