/**
 * Sandbox Tenants: open one (per-caller bound), read it, declare its flat
 * Offers and its routing mechanics, and mint and drive its Matters. The Matter
 * doors are the same plugin as at the top level, mounted under
 * `/tenants/{tenantId}`, with two Tenant rules in front of them:
 * - a mint (POST …/matters, POST …/orders) names a declared Offer, which fixes
 *   the flat price (`listFeeUsd`) and, when it names one, the matter type;
 * - a Tenant's agent never consents, directs or withdraws for the Client: a
 *   request whose `X-Actor` names anyone but `client` is refused on those doors.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ORDER_MATTER_TYPE } from '../../domain/matter-types.ts';
import { refusal } from '../../domain/refusals.ts';
import type { TenantState } from '../../engine/tenants.ts';
import { grainView, type Grain } from '../../engine/workspaces.ts';
import { empty, ok } from '../envelopes.ts';
import { resolveGrain } from '../grain.ts';
import { param } from '../params.ts';
import { admitCreation, SANDBOX_PROVISIONING } from '../sandbox.ts';
import { meritsKeyRefusal, OffersBody, percentRefusal, TenantParams, TenantRoutingBody } from '../../schemas/grains.ts';
import { Type } from '@sinclair/typebox';
import { Strict } from '../../schemas/common.ts';
import { TenantMintBody } from '../../schemas/matters.ts';
import { TenantDoors as R } from '../schemas/responses.ts';
import type { Services } from '../services.ts';
import { matterRoutes } from './matters.ts';
import { addRefusals } from '../declared-refusals.ts';

const PREFIX = '/tenants/:tenantId';

export async function tenantRoutes(fastify: FastifyInstance, { services }: { services: Services }) {
  // Handlers read their body and params typed from the route's TypeBox schemas.
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { tenants, journal } = services;

  const view = async (grain: Grain, state: TenantState = tenants.stateOf(grain)) => {
    const id = grain.record.id;
    const [matters, events] = await Promise.all([journal.countStreams(id, 'matter.opened'), journal.latestSeq(id)]);
    return {
      ...grainView(tenants, grain.record),
      offers: state.offers,
      routing: state.routing ?? { maxFeeUsd: null },
      counts: { offers: state.offers.length, matters, events },
    };
  };

  /** Resolves the tenant first, so an unknown or expired one is 404 before any body check. */
  const resolveFirst = resolveGrain(services);

  // No request schema to type, and the hook in `sandbox.ts` stamps the reply's `provenance` after the handler.
  fastify.post('/tenants', { config: { keyless: SANDBOX_PROVISIONING }, schema: R.open }, async (request, reply) => {
    await admitCreation(services, 'tenant', request, reply);
    const grain = await tenants.open();
    request.grain = grain.record.id;
    return reply.status(201).send(ok({ tenant: await view(grain) }));
  });

  // A preHandler, so the params check answers ahead of the 404.
  app.get(PREFIX, { schema: { params: TenantParams, ...R.get }, preHandler: resolveFirst }, async (request) => ok({ tenant: await view(request.sandbox!) }));

  app.put(`${PREFIX}/offers`, {
    schema: { params: TenantParams, body: Type.Union([OffersBody, Strict({ offers: OffersBody })]), ...R.offers },
    preValidation: async (request) => {
      await resolveFirst(request);
      const refusal = percentRefusal(request.body, ['priceUsd']);
      if (refusal) throw refusal;
    },
  }, async (request) => {
    const body = request.body;
    const offers = Array.isArray(body) ? body : body.offers;
    const state = await tenants.declareOffers(request.grain, offers);
    const declared = { tenantId: request.grain, offers: state.offers, declaredSeq: state.offersSeq };
    return state.offers.length ? ok(declared) : empty(`no Offer is declared: tenant ${request.grain} cannot mint Matters until one is`, declared);
  });

  app.put(`${PREFIX}/routing`, {
    schema: { params: TenantParams, body: TenantRoutingBody, ...R.routing },
    preValidation: async (request) => {
      await resolveFirst(request);
      const refusal = meritsKeyRefusal(request.body, 'Tenant') ?? percentRefusal(request.body, ['maxFeeUsd']);
      if (refusal) throw refusal;
    },
  }, async (request) => {
    const state = await tenants.declareRouting(request.grain, request.body);
    return ok({ tenantId: request.grain, routing: state.routing, declaredSeq: state.routingSeq });
  });

  // The Tenant's Matters: the shared Matter doors, behind the Tenant's own rules.
  await app.register(async (scoped) => {
    // The Matter routes mark their doors (`config.door`): only POST doors are marked.
    scoped.addHook('onRoute', (route) => {
      const door = route.config?.door;
      if (door === 'mint' || door === 'order') addRefusals(route, 422, 'the Offer is missing, unknown or does not fit the body', ['OFFER_REQUIRED', 'UNKNOWN_OFFER', 'OFFER_MATTER_TYPE', 'OFFER_PRICE', 'TENANT_MISMATCH']);
      if (door === 'client') addRefusals(route, 422, 'only the Client speaks through this door', ['ACTOR_NOT_CLIENT']);
    });
    scoped.addHook('preValidation', async (request) => {
      const { door } = request.routeOptions.config;
      if (door === 'mint' || door === 'order') return applyOffer(services, request, door === 'order');
      if (door === 'client') refuseTenantActor(request, request.routeOptions.url ?? '');
    });
    await scoped.register(matterRoutes, { services, prefix: PREFIX, mintBody: TenantMintBody });
  });
}

/** Fills the mint body from the named Offer, or refuses 422 when it names none the Tenant declared. */
async function applyOffer(services: Services, request: FastifyRequest, isOrder: boolean) {
  const tenantId = param(request, 'tenantId');
  const body = request.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    await services.tenants.resolve(tenantId);
    return; // the body schema words the refusal
  }
  // Before validation the body is any JSON object; the Offer's terms are written into it in place.
  const mint = body as Record<string, unknown>;
  const terms = await services.tenants.mintTerms(tenantId, mint, isOrder ? ORDER_MATTER_TYPE : undefined);
  if (mint.tenant !== undefined && mint.tenant !== tenantId) {
    throw refusal('TENANT_MISMATCH', { tenantId, named: mint.tenant });
  }
  mint.listFeeUsd = terms.listFeeUsd;
  if (!isOrder) {
    mint.tenant = tenantId;
    if (mint.matterType === undefined && terms.matterType) mint.matterType = terms.matterType;
  }
}

/** A Tenant's agent cannot consent for, direct, or withdraw for the Client. */
function refuseTenantActor(request: FastifyRequest, url: string) {
  const actor = request.headers['x-actor'];
  if (actor === undefined || actor === 'client') return;
  const door = url.slice(url.lastIndexOf('/') + 1);
  if (door === 'terminal') {
    // Before validation: the body may be anything.
    const body: unknown = request.body;
    const outcome = body !== null && typeof body === 'object' && 'outcome' in body ? body.outcome : undefined;
    if (outcome !== 'withdrawn') return;
  }
  const act = door === 'consent' ? 'consent for' : door === 'client-direction' ? 'direct for' : 'withdraw for';
  throw refusal('ACTOR_NOT_CLIENT', { actor, door: 'tenant', act }, { rule: 'actor', actor });
}
