/**
 * Every door of "Matters and orders". Mounted once per grain prefix: the top
 * level and `/workspaces/{workspaceId}` share these routes and envelopes.
 */
import type { TSchema } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isMatterType, MATTER_TYPES, ORDER_MATTER_TYPE } from '../../domain/matter-types.ts';
import { matterOpening, matterOpeningOf } from '../../domain/paid-acts.ts';
import { assetView, attestationRows, documentRows, journalView, matterView, settlementOf, stageOf, statusOf } from '../../domain/matter-view.ts';
import { refusal } from '../../domain/refusals.ts';
import type { AdvanceResult, Created, MatterEntity } from '../../engine/matters.ts';
import { ladderStreamOf, ladderView, type LadderState } from '../../engine/ladders.ts';
import { answerAhead, sendAnswered } from '../answer-ahead.ts';
import type { JournalEvent } from '../../journal/store.ts';
import { listed, ok } from '../envelopes.ts';
import { keptPagesOf } from '../kept-pages.ts';
import { answerKey, storedAnswersOf } from '../stored-answers.ts';
import { refusingUnreadable, Unreadable } from '../../engine/unreadable.ts';
import { unreadableItem } from '../unreadable.ts';
import { expectedVersionOf, tagVersion, versionTag } from '../versions.ts';
import { optionalBody } from '../json-body.ts';
import { reaches } from '../../engine/grains.ts';
import { emptyMessage, ID_IS_CAPABILITY, resolveGrain } from '../grain.ts';
import { SIGNED_CALLBACK, SIGNED_NOT_KEYED } from '../supply-callback.ts';
import { IfMatchHeaders, MatterParams } from '../../schemas/common.ts';
import { AdvanceBody, ClientDirectionBody, ConsentBody, CreateMatterBody, DocumentBody, GigResultBody, ListAssetsQuery, ListMattersQuery, OrderBody, SignedCallbackHeaders, TerminalBody } from '../../schemas/matters.ts';
import { MatterDoors as R } from '../schemas/responses.ts';
import type { Services } from '../services.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Which Matter door a route is, for the rules a Tenant puts in front of them: a mint, an order, or a door only the Client speaks through. */
    door?: 'mint' | 'order' | 'client';
  }
}



/** What a create answers: the Matter, and its Asset with its ladder. */
const created = <A>(entity: MatterEntity, asset: A) => ok({ matter: matterView(entity), asset });

/** What an advance answers: the Matter, and the stage committed or the Gig escalated. */
const advanced = (result: AdvanceResult) => ok({ matter: matterView(result.entity), ...(result.committed ? { committed: result.committed } : {}), ...(result.escalated ? { escalated: result.escalated } : {}) });

/** A ladder's view, from the ladder entity a create's transaction opened (null: the Asset has none). */
const ladderOf = (ladder: unknown) => (ladder ? ladderView(ladder as LadderState) : null);

/** A read by id: at the top level it reaches every key's records (the id is the capability); answered with an ETag, 304 to a matching If-None-Match (`etag.ts`). */
const BY_ID = { config: { reachesAnyKey: ID_IS_CAPABILITY, etag: true as const } };
/** A page: answered with an ETag, 304 to a matching If-None-Match (`etag.ts`). */
const PAGE = { config: { etag: true as const } };

export async function matterRoutes(fastify: FastifyInstance, { services, mintBody = CreateMatterBody }: { services: Services; mintBody?: TSchema }) {
  // Handlers read their body, params and query typed from the route's TypeBox schemas.
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { matters } = services;
  const topLevel = app.prefix === '';
  app.addHook('preHandler', resolveGrain(services));

  // The Asset carries its Deadline Ladder (the same view as GET /deadlines/{assetId}).
  const assetWithLadder = async (minted: JournalEvent, entity: MatterEntity) => ({ ...assetView(minted, [entity]), deadlineLadder: await services.ladders.viewOf(entity.grain, minted.stream) });
  const withAsset = async (entity: MatterEntity) => assetWithLadder(await matters.mintingOf(entity), entity);

  // Answers kept as rows (`stored-answers.ts`): it takes the routes' serializers as they are added.
  const stored = storedAnswersOf(services);
  stored.install(app);
  // Pages kept by their grain's seq (`kept-pages.ts`): a page read again while nothing was written to its grain is a lookup.
  const pages = keptPagesOf(services.journal);
  pages.install(app);

  app.get('/matters', { ...PAGE, schema: { querystring: ListMattersQuery, ...R.list } }, async (request, reply) => {
    const q = request.query;
    if (q.scope !== undefined) {
      throw refusal('SCOPE_RESERVED', { scope: q.scope }, { scope: q.scope });
    }
    if (await pages.sendKept(request, reply)) return reply;
    // Unfiltered, a page is its Matters' kept items, read in one statement and sent as stored (`stored-answers.ts`).
    if (q.filter === undefined && q.tag === undefined && (await stored.page(request, reply, q.after ?? 0, q.limit!))) return reply;
    // The schema's default fills `limit` before the handler runs; its static type cannot say so.
    const page = await matters.list(request.grain, { ...q, limit: q.limit! });
    const narrowed = q.filter !== undefined || q.tag !== undefined;
    return listed(page.matters.map((m) => (m instanceof Unreadable ? unreadableItem(request, 'Matter', 'matters', m) : matterView(m))), emptyMessage(request, narrowed ? 'no Matter matches that filter or tag' : 'no Matters yet: POST /matters opens one'), { nextAfter: page.nextAfter });
  });

  app.post('/matters', {
    schema: { body: mintBody, ...R.create },
    config: { door: 'mint', paidAct: (request) => matterOpeningOf(request.body, 'POST /matters') },
    // A missing or unratified matterType is 400, ahead of any other body check.
    preValidation: async (request: FastifyRequest) => {
      const body: unknown = request.body;
      const isObject = body !== null && typeof body === 'object' && !Array.isArray(body);
      const given = isObject && 'matterType' in body ? body.matterType : undefined;
      if ((body === undefined || isObject) && !isMatterType(given)) {
        throw refusal('MATTER_TYPE_NOT_RATIFIED', { given, ratified: MATTER_TYPES }, { ratified: MATTER_TYPES });
      }
    },
  }, async (request, reply) => {
    // Under an Idempotency-Key the answer is rendered inside the commit, from the Matter and its ladder as the transaction opens them.
    answerAhead<Created>(request, reply, ({ entity, minted, opened }) => ({ status: 201, body: created(entity, { ...assetView(minted, [entity]), deadlineLadder: ladderOf(opened(ladderStreamOf(minted.stream))) }) }));
    // The mint body's schema is this door's own or a Tenant's (`mintBody`, which the Offer has filled in by now): a TSchema, so its type is not known here.
    const entity = await matters.create(request.grain, request.body as CreateMatterBody);
    if (sendAnswered(request, reply)) return reply;
    return reply.status(201).send(created(entity, await withAsset(entity)));
  });

  // Shared by every mount (their GET answers with one schema, `StoredAnswers.install`), and filled by commits too.
  const answers = stored.kept;
  answers.install(app);

  app.get('/matters/:id', { ...BY_ID, schema: { params: MatterParams, ...R.get } }, async (request, reply) => {
    if (await stored.send(request, reply, request.params.id)) return reply;
    const entity = await matters.get(request.grain, request.params.id);
    // Everything the answer reads is read first, so the key below names the very states it is built from (no await between).
    const { deps, build } = await stored.read(entity);
    tagVersion(reply, entity.version);
    // What the bytes depend on, all of it (`deps`): the Matter's version (its view and journal, and its Asset's status history,
    // docket and lineage, which are read off that journal; the Asset's own stream is its minting fact, never appended to)
    // and its ladder's version (every field of the ladder's view, its days until the deadline too, moves only by a fact
    // on the ladder's stream: no clock is read); and the grain asked from (`answerKey`).
    const key = answerKey(request.grain, deps);
    if (answers.sendKept(reply, entity, key)) return reply;
    // The bytes sent are kept as the Matter's row too: the grain asked from reaches the Matter's, so they are its own grain's answer.
    answers.keep(request, entity, key, (body, etag) => stored.put(entity, deps, body, etag));
    return build();
  });

  app.post('/matters/:id/advance', { schema: { params: MatterParams, headers: IfMatchHeaders, body: AdvanceBody, ...R.advance }, preValidation: optionalBody }, async (request, reply) => {
    // Under an Idempotency-Key a stage commit's answer is rendered inside the commit (an escalation's waits for its Gig's post).
    answerAhead<AdvanceResult>(request, reply, (result) => ({ status: 200, body: advanced(result), etag: versionTag(result.entity.version) }));
    const result = await matters.advance(request.grain, request.params.id, request.body, expectedVersionOf(request));
    if (sendAnswered(request, reply)) return reply;
    tagVersion(reply, result.entity.version);
    return advanced(result);
  });

  app.post('/matters/:id/consent', { schema: { params: MatterParams, headers: IfMatchHeaders, body: ConsentBody, ...R.consent }, config: { door: 'client' } }, async (request, reply) => {
    const { entity, consentSeq } = await matters.consent(request.grain, request.params.id, request.body, expectedVersionOf(request));
    tagVersion(reply, entity.version);
    return ok({ matter: { id: entity.id, stage: stageOf(entity), consented: true as const }, consentSeq });
  });

  // The supply network's callback. At the top level it is signed, not keyed,
  // and reaches every key's Matters: the signature is the capability.
  app.post('/matters/:id/gig-result', {
    ...(topLevel
      ? {
          schema: { params: MatterParams, headers: SignedCallbackHeaders, body: GigResultBody, ...R.signedGigResult, description: SIGNED_CALLBACK },
          config: { keyless: SIGNED_NOT_KEYED, reachesAnyKey: SIGNED_NOT_KEYED, signedCallback: true },
        }
      : { schema: { params: MatterParams, headers: IfMatchHeaders, body: GigResultBody, ...R.gigResult } }),
  }, async (request, reply) => {
    const { entity, replayed } = await matters.gigResult(request.grain, request.params.id, request.body, request.delivery, expectedVersionOf(request));
    if (replayed) reply.header('idempotent-replayed', 'true');
    tagVersion(reply, entity.version);
    return ok({ matter: matterView(entity) });
  });

  app.post('/matters/:id/client-direction', { schema: { params: MatterParams, headers: IfMatchHeaders, body: ClientDirectionBody, ...R.clientDirection }, config: { door: 'client' } }, async (request, reply) => {
    const body = request.body;
    if (!body.instruction.trim()) throw refusal('INSTRUCTION_MISSING', {});
    const result = await matters.clientDirection(request.grain, request.params.id, body, expectedVersionOf(request));
    tagVersion(reply, result.entity.version);
    return ok({ matter: matterView(result.entity), directionSeq: result.directionSeq, ...(result.escalated ? { escalated: result.escalated } : {}) });
  });

  app.get('/matters/:id/settlement', { ...BY_ID, schema: { params: MatterParams, ...R.settlement } }, async (request) => {
    const entity = await matters.get(request.grain, request.params.id);
    if (statusOf(entity) !== 'fulfilled') {
      throw refusal('MATTER_NOT_FULFILLED', { matterId: entity.id, status: statusOf(entity) }, { matterId: entity.id });
    }
    return ok({ matterId: entity.id, settlement: settlementOf(entity) });
  });

  app.get('/matters/:id/journal', { ...BY_ID, schema: { params: MatterParams, ...R.journal } }, async (request) => {
    const entity = await matters.get(request.grain, request.params.id);
    return ok({ matterId: entity.id, stage: stageOf(entity), appendOnly: true as const, events: journalView(entity) });
  });

  app.get('/matters/:id/attestations', { ...BY_ID, schema: { params: MatterParams, ...R.attestations } }, async (request) => {
    const entity = await matters.get(request.grain, request.params.id);
    return listed(attestationRows(entity), 'no Attestation has landed on this Matter yet', { matterId: entity.id });
  });

  app.post('/matters/:id/terminal', { schema: { params: MatterParams, headers: IfMatchHeaders, body: TerminalBody, ...R.terminal }, config: { door: 'client' } }, async (request, reply) => {
    const { entity, terminal } = await matters.terminal(request.grain, request.params.id, request.body, expectedVersionOf(request));
    tagVersion(reply, entity.version);
    return ok({ matter: matterView(entity), terminal });
  });

  app.get('/matters/:id/documents', { ...BY_ID, schema: { params: MatterParams, ...R.documents } }, async (request) => {
    const entity = await matters.get(request.grain, request.params.id);
    return listed(documentRows(entity), 'no document is recorded on this Matter', { matterId: entity.id });
  });

  app.post('/matters/:id/documents', { schema: { params: MatterParams, headers: IfMatchHeaders, body: DocumentBody, ...R.recordDocument } }, async (request, reply) => {
    const document = await matters.recordDocument(request.grain, request.params.id, request.body, expectedVersionOf(request));
    return reply.status(201).send(ok({ document }));
  });

  app.post('/orders', { schema: { body: OrderBody, ...R.order }, config: { door: 'order', paidAct: () => matterOpening(ORDER_MATTER_TYPE, 'POST /orders') } }, async (request, reply) => {
    const body = request.body;
    const { entity, stoppedBy } = await matters.order(request.grain, body);
    return reply.status(201).send(ok({ matterId: entity.id, status: statusOf(entity), stage: stageOf(entity), ...(stoppedBy ? { stoppedBy } : {}), matter: matterView(entity) }));
  });

  app.get('/assets', { ...PAGE, schema: { querystring: ListAssetsQuery, ...R.assets } }, async (request, reply) => {
    if (await pages.sendKept(request, reply)) return reply;
    const { after = 0, limit } = request.query;
    const heads = await services.journal.streamHeads(request.grain, 'asset.minted', after, limit!);
    // As GET /matters: a full page names where the next starts (which may be empty), a short one is the last.
    const nextAfter = heads.length === limit ? heads[heads.length - 1].seq : null;
    const items = heads.map((h) => (h.unreadable ? unreadableItem(request, 'Asset', 'assets', new Unreadable(h.stream, h.unreadable.message)) : { id: h.stream, kind: h.data.kind, title: h.data.title, lineage: [h.data.matterId] }));
    return listed(items, emptyMessage(request, after ? 'no Assets after that cursor' : 'no Assets yet: each Matter mints one'), { nextAfter });
  });

  app.get('/assets/:id', { ...BY_ID, schema: { params: MatterParams, ...R.asset } }, async (request) => {
    const id = request.params.id;
    const [minted] = await refusingUnreadable(id, services.journal.readStream(id));
    if (!minted || minted.kind !== 'asset.minted' || !reaches(request.grain, minted.grain)) throw refusal('ASSET_NOT_FOUND', { assetId: id });
    const entity = await matters.get(request.grain, String(minted.data.matterId));
    return ok({ asset: await assetWithLadder(minted, entity) });
  });
}
