/**
 * Each record's inspector page (`…/inspect`), beside its inspection door
 * (`src/http/routes/inspection.ts`): the same inspection, sent inside an HTML
 * page that draws it on the machine's diagram. The page is answered by the
 * same code as its door, so an unknown record or grain is the same refusal,
 * never a page of nothing.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Inspection } from '../engine/inspection.ts';
import { ID_IS_CAPABILITY, resolveGrain } from '../http/grain.ts';
import { inspectionsOf } from '../http/routes/inspection.ts';
import { InspectionDoors as R, Media } from '../http/schemas/responses.ts';
import type { Services } from '../http/services.ts';
import { MatterParams } from '../schemas/common.ts';
import { DeadlineParams } from '../schemas/deadlines.ts';
import { FirmMemberParams } from '../schemas/grains.ts';
import { readCoverage } from './diagrams.ts';
import { inspectorPage } from './inspector.ts';
import { sendPage } from './layout.ts';

const BY_ID = { reachesAnyKey: ID_IS_CAPABILITY };

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

/** A Matter's and a ladder's inspector page, under one grain prefix. */
export async function inspectorRoutes(fastify: FastifyInstance, { services }: { services: Services }) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const inspections = inspectionsOf(services);
  app.addHook('preHandler', resolveGrain(services));

  app.get('/matters/:id/inspect', { config: BY_ID, schema: { params: MatterParams, ...pageDoor('Matter', R.matter) } }, async (request, reply) =>
    inspectorAnswer(reply, request, 'Matter', await inspections.matter(request.grain, request.params.id)),
  );

  app.get('/deadlines/:assetId/inspect', { config: BY_ID, schema: { params: DeadlineParams, ...pageDoor('Deadline Ladder', R.ladder) } }, async (request, reply) =>
    inspectorAnswer(reply, request, 'Deadline Ladder', await inspections.ladder(request.grain, request.params.assetId)),
  );
}

/** A member's current Enrollment's inspector page, in a sandbox firm. */
export async function enrollmentInspectorRoutes(fastify: FastifyInstance, { services }: { services: Services }) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const inspections = inspectionsOf(services);
  // The firm resolves first, as its other doors do: an unknown or expired one is 404 before anything else.
  app.addHook('preValidation', resolveGrain(services));

  app.get('/firms/:firmId/enrollments/:memberId/inspect', { schema: { params: FirmMemberParams, ...pageDoor('Enrollment', R.enrollment) } }, async (request, reply) =>
    inspectorAnswer(reply, request, 'Enrollment', await inspections.enrollment(request.grain, request.params.memberId)),
  );
}
