/**
 * Conflicts ledgers: hashes only, append-only, never pooled.
 *
 * Per-practitioner ledgers (`conflictRoutes`) mount at the top level and under
 * `/workspaces/{workspaceId}`. On the top-level surface they answer 403
 * BLOCKED naming the upgrade path (`credential_verified`, not live in this
 * preview); inside a workspace they are open on synthetic state. The pooled
 * `GET /conflicts` is 403 BLOCKED everywhere, naming the per-practitioner address.
 *
 * Firm ledgers (`firmConflictRoutes`) live under `/firms/{firmId}`, with the
 * prescreen, which never replaces the Signer's own full check.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { refusal } from '../../domain/refusals.ts';
import type { ConflictEntry, LedgerOwner } from '../../engine/conflicts.ts';
import { listed, ok } from '../envelopes.ts';
import { resolveGrain } from '../grain.ts';
import { param } from '../params.ts';
import { Cursor, PageSize, Strict } from '../../schemas/common.ts';
import { ConflictEntryBody, FirmParams, nameHashRefusal, PractitionerParams, PrescreenBody } from '../../schemas/grains.ts';
import { ConflictDoors as R } from '../schemas/responses.ts';
import type { Services } from '../services.ts';

const LEDGER_PAGE = 100;
const LedgerQuery = Strict({
  after: Type.Optional(Cursor('entries with seq greater than this')),
  limit: Type.Optional(PageSize(500, LEDGER_PAGE)),
});
type Query = { after?: number; limit?: number };
const PRESCREEN_CAVEAT = "a prescreen of this one ledger; it never replaces the Signer's own full conflicts check";

/** One page of a ledger, OK or a typed EMPTY, always stating that it is append-only. */
function page(entries: ConflictEntry[], query: Query, ledger: Record<string, unknown>, emptyMessage: string) {
  const after = query.after ?? 0;
  const rest = entries.filter((e) => e.seq > after);
  const results = rest.slice(0, query.limit ?? LEDGER_PAGE);
  const extra = { appendOnly: true, ledger, ledgerEntries: entries.length, nextAfter: rest.length > results.length ? results[results.length - 1].seq : null };
  return listed(results, after > 0 && entries.length ? 'no entries after that seq' : emptyMessage, extra);
}

export async function conflictRoutes(fastify: FastifyInstance, { services }: { services: Services }) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { conflicts } = services;
  // Resolved before validation, so the top-level 403 answers ahead of any body or query check.
  app.addHook('preValidation', resolveGrain(services));
  const where = (request: FastifyRequest) => (request.sandbox ? `/workspaces/${request.grain}` : '');

  const refuseTopLevel = async (request: FastifyRequest) => {
    if (request.sandbox) return refuseNonHash(request);
    const practitionerId = param(request, 'practitionerId');
    throw refusal('CREDENTIAL_VERIFICATION_REQUIRED', { practitionerId }, {
      upgrade: { tier: 'credential_verified', how: 'license verification by the identity provider, fresh at act-class; not live in this preview' },
      sandbox: `POST /workspaces, then /workspaces/{id}/conflicts/${practitionerId}`,
    });
  };

  app.get('/conflicts', { schema: R.pooled }, async (request) => {
    const at = `${where(request)}/conflicts/{practitionerId}`;
    throw refusal('CONFLICTS_NOT_POOLED', { at }, { address: at });
  });

  app.get('/conflicts/:practitionerId', { schema: { params: PractitionerParams, querystring: LedgerQuery, ...R.ledger }, preValidation: refuseTopLevel }, async (request) => {
    const { practitionerId } = request.params;
    const owner: LedgerOwner = { kind: 'practitioner', id: practitionerId };
    const entries = await conflicts.entries(request.grain, owner);
    return page(entries, request.query, { practitioner: practitionerId }, `no entries on ${practitionerId}'s ledger: POST ${where(request)}/conflicts/${practitionerId}/entries {"nameHash": <sha256 hex>} records one`);
  });

  // At the top level this door is BLOCKED to every caller and a key cannot open it: asking for one first would only mislead.
  app.post('/conflicts/:practitionerId/entries', { config: { keyless: 'blocked to every caller at the top level until practitioner credential verification is live' }, schema: { params: PractitionerParams, body: ConflictEntryBody, ...R.record }, preValidation: refuseTopLevel }, async (request, reply) => {
    const { practitionerId } = request.params;
    const entry = await conflicts.record(request.grain, { kind: 'practitioner', id: practitionerId }, request.body.nameHash);
    return reply.status(201).send(ok({ entry, appendOnly: true, ledger: { practitioner: practitionerId } }));
  });
}

async function refuseNonHash(request: FastifyRequest) {
  const refusal = nameHashRefusal(request.body);
  if (refusal) throw refusal;
}

/** The firm's own ledger and its prescreen. Mounted by the firm routes, behind the firm's resolution. */
export async function firmConflictRoutes(fastify: FastifyInstance, { services }: { services: Services }) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { conflicts } = services;
  const ownerOf = (request: FastifyRequest): LedgerOwner => ({ kind: 'firm', id: request.grain });

  app.get('/firms/:firmId/conflicts', { schema: { params: FirmParams, querystring: LedgerQuery, ...R.firmLedger } }, async (request) => {
    const entries = await conflicts.entries(request.grain, ownerOf(request));
    return page(entries, request.query, { firm: request.grain }, `no entries on firm ${request.grain}'s ledger: POST /firms/${request.grain}/conflicts/entries {"nameHash": <sha256 hex>} records one`);
  });

  app.post('/firms/:firmId/conflicts/entries', { schema: { params: FirmParams, body: ConflictEntryBody, ...R.firmRecord }, preValidation: refuseNonHash }, async (request, reply) => {
    const entry = await conflicts.record(request.grain, ownerOf(request), request.body.nameHash);
    return reply.status(201).send(ok({ entry, appendOnly: true, ledger: { firm: request.grain } }));
  });

  app.post('/firms/:firmId/conflicts/prescreen', { schema: { params: FirmParams, body: PrescreenBody, ...R.prescreen }, preValidation: refuseNonHash }, async (request) => {
    const verdict = await conflicts.prescreen(request.grain, ownerOf(request), request.body.nameHashes);
    return ok({ ...verdict, ledger: { firm: request.grain }, caveat: PRESCREEN_CAVEAT });
  });
}
