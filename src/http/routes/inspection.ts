/**
 * The inspection doors (`src/engine/inspection.ts`): one record on its
 * machine, as data. `GET …/matters/{id}/inspection` and
 * `GET …/deadlines/{assetId}/inspection` mount on every grain prefix that
 * serves Matters and ladders (the top level, workspaces, tenants);
 * `GET /firms/{firmId}/enrollments/{memberId}/inspection` on the firm.
 * Reads by id, keyless as the record's own read (#13): at the top level the
 * id is the capability.
 *
 * Beside each, its inspector page (`…/inspect`): the same inspection sent
 * inside an HTML page that draws it on the machine's diagram. The page is
 * answered by the same code as its door, so an unknown record or grain is
 * the same refusal, never a page of nothing.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Inspections, type Inspection } from '../../engine/inspection.ts';
import { readCoverage } from '../pages/diagrams.ts';
import { inspectorPage } from '../pages/inspector.ts';
import { sendPage } from '../pages/layout.ts';
import { ok } from '../envelopes.ts';
import { ID_IS_CAPABILITY, resolveGrain } from '../grain.ts';
import { MatterParams } from '../../schemas/common.ts';
import { DeadlineParams } from '../../schemas/deadlines.ts';
import { FirmMemberParams } from '../../schemas/grains.ts';
import { InspectionQuery } from '../../schemas/inspection.ts';
import { InspectionDoors as R, Media } from '../schemas/responses.ts';
import type { Services } from '../services.ts';

const BY_ID = { reachesAnyKey: ID_IS_CAPABILITY };

const inspectionsOf = (services: Services) => new Inspections(services.supervisor, services.matters, services.firms);

/** The inspector page's door: its HTML, and every refusal the inspection door beside it answers. */
function pageDoor(title: string, inspection: { response: Record<string, unknown> }) {
  const refusals = Object.fromEntries(Object.entries(inspection.response).filter(([status]) => Number(status) >= 400 && Number(status) !== 422));
  return {
    summary: `The inspector page of a ${title}`,
    description: `An HTML page: the ${title} on its machine's generated diagram (its state now, its path numbered, the doors open now and the refusal every other command would get), beside its journal as a timeline; choosing a fact shows it as of that fact (from the inspection door beside it), and new facts arrive live. The inspection as of now comes inside the page; an unknown ${title} or grain is the inspection door's refusal.`,
    tags: ['discovery'],
    response: { 200: Media('text/html', 'the inspector page'), ...refusals },
  };
}

/** The inspector page of `inspection`, served at `request`'s path (its door is the path's `…/inspection`). */
async function inspectorAnswer(reply: FastifyReply, request: FastifyRequest, title: string, inspection: Inspection) {
  const path = request.url.split('?')[0];
  const machine = inspection.machine.id;
  return sendPage(reply, inspectorPage({ title, id: inspection.subject.id, path, door: `${path.slice(0, -'/inspect'.length)}/inspection`, diagram: inspection.machine.diagram, coverage: await readCoverage(machine), inspection }));
}

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

  app.get('/matters/:id/inspect', { config: BY_ID, schema: { params: MatterParams, ...pageDoor('Matter', R.matter) } }, async (request, reply) =>
    inspectorAnswer(reply, request, 'Matter', await inspections.matter(request.grain, request.params.id)),
  );

  app.get('/deadlines/:assetId/inspect', { config: BY_ID, schema: { params: DeadlineParams, ...pageDoor('Deadline Ladder', R.ladder) } }, async (request, reply) =>
    inspectorAnswer(reply, request, 'Deadline Ladder', await inspections.ladder(request.grain, request.params.assetId)),
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

  app.get('/firms/:firmId/enrollments/:memberId/inspect', { schema: { params: FirmMemberParams, ...pageDoor('Enrollment', R.enrollment) } }, async (request, reply) =>
    inspectorAnswer(reply, request, 'Enrollment', await inspections.enrollment(request.grain, request.params.memberId)),
  );
}
