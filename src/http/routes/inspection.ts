/**
 * The inspection doors (`src/engine/inspection.ts`): one record on its
 * machine, as data. `GET …/matters/{id}/inspection` and
 * `GET …/deadlines/{assetId}/inspection` mount on every grain prefix that
 * serves Matters and ladders (the top level, workspaces, tenants);
 * `GET /firms/{firmId}/enrollments/{memberId}/inspection` on the firm.
 * Reads by id, keyless as the record's own read (#13): at the top level the
 * id is the capability.
 *
 * Beside each, its inspector page (`…/inspect`, `src/web/inspector-routes.ts`):
 * the same inspection sent inside an HTML page that draws it on the
 * machine's diagram.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Inspections } from '../../engine/inspection.ts';
import { ok } from '../envelopes.ts';
import { ID_IS_CAPABILITY, resolveGrain } from '../grain.ts';
import { MatterParams } from '../../schemas/common.ts';
import { DeadlineParams } from '../../schemas/deadlines.ts';
import { FirmMemberParams } from '../../schemas/grains.ts';
import { InspectionQuery } from '../../schemas/inspection.ts';
import { InspectionDoors as R } from '../schemas/responses.ts';
import type { Services } from '../services.ts';

const BY_ID = { reachesAnyKey: ID_IS_CAPABILITY };

/** The inspections the doors answer (and the inspector pages beside them, `src/web/inspector-routes.ts`). */
export const inspectionsOf = (services: Services) => new Inspections(services.supervisor, services.matters, services.firms);

/** A Matter's and a ladder's inspection, under one grain prefix. */
export async function inspectionRoutes(fastify: FastifyInstance, { services }: { services: Services }) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const inspections = inspectionsOf(services);
  app.addHook('preHandler', resolveGrain(services));

  app.get('/matters/:id/inspection', { config: { ...BY_ID, etag: true }, schema: { params: MatterParams, querystring: InspectionQuery, ...R.matter } }, async (request) =>
    ok({ inspection: await inspections.matter(request.grain, request.params.id, request.query.at) }),
  );

  app.get('/deadlines/:assetId/inspection', { config: { ...BY_ID, etag: true }, schema: { params: DeadlineParams, querystring: InspectionQuery, ...R.ladder } }, async (request) =>
    ok({ inspection: await inspections.ladder(request.grain, request.params.assetId, request.query.at) }),
  );
}

/** A member's current Enrollment's inspection, in a sandbox firm. */
export async function enrollmentInspectionRoutes(fastify: FastifyInstance, { services }: { services: Services }) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const inspections = inspectionsOf(services);
  // The firm resolves first, as its other doors do: an unknown or expired one is 404 before anything else.
  app.addHook('preValidation', resolveGrain(services));

  app.get('/firms/:firmId/enrollments/:memberId/inspection', { schema: { params: FirmMemberParams, querystring: InspectionQuery, ...R.enrollment } }, async (request) =>
    ok({ inspection: await inspections.enrollment(request.grain, request.params.memberId, request.query.at) }),
  );
}
