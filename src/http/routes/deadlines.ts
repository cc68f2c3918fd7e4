/**
 * The "Deadlines" doors: one Deadline Ladder per Asset, addressed by the Asset
 * id. Mounted on every grain prefix the Matter routes mount on.
 *
 * Statuses: 404 no ladder here; 409 the ladder refuses (resolved, not at the
 * terminal rung, no ack due, a tick past the deadline); 412 an If-Match the
 * ladder has moved on from (its version is its ETag); 422 a missing or
 * malformed field (schema), including a blank actor or evidenceRef.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { refusal } from '../../domain/refusals.ts';
import { ladderView } from '../../engine/ladders.ts';
import { ok } from '../envelopes.ts';
import { ID_IS_CAPABILITY, resolveGrain } from '../grain.ts';
import { IfMatchHeaders } from '../../schemas/common.ts';
import { AckBody, DeadlineParams, MonitorBody, ResolveBody, SatisfyBody, TickBody } from '../../schemas/deadlines.ts';
import { expectedVersionOf, tagVersion } from '../versions.ts';
import { DeadlineDoors as R } from '../schemas/responses.ts';
import type { Services } from '../services.ts';

/** A string that is present but blank names nobody: 422, like a missing one. */
function requireNamed(value: string, field: string, code: 'ACTOR_MISSING' | 'EVIDENCE_MISSING', what: string): string {
  if (value.trim() === '') throw refusal(code, { field, what }, { field });
  return value.trim();
}

export async function deadlineRoutes(fastify: FastifyInstance, { services }: { services: Services }) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ladders } = services;
  app.addHook('preHandler', resolveGrain(services));

  app.get('/deadlines/:assetId', { config: { reachesAnyKey: ID_IS_CAPABILITY }, schema: { params: DeadlineParams, ...R.get } }, async (request, reply) => {
    const view = await ladders.view(request.grain, request.params.assetId);
    tagVersion(reply, view.version);
    return ok(view);
  });

  app.post('/deadlines/:assetId/tick', { schema: { params: DeadlineParams, headers: IfMatchHeaders, body: TickBody, ...R.tick } }, async (request, reply) => {
    const { entity, rungs, seq } = await ladders.tick(request.grain, request.params.assetId, request.body.days, expectedVersionOf(request));
    tagVersion(reply, entity.version);
    const view = ladderView(entity);
    return ok({ assetId: view.assetId, daysUntilDeadline: view.daysUntilDeadline, alarm: view.alarm, ackRequiredToday: view.ackRequiredToday, events: rungs, seq });
  });

  app.post('/deadlines/:assetId/ack', { schema: { params: DeadlineParams, headers: IfMatchHeaders, body: AckBody, ...R.ack } }, async (request, reply) => {
    const actor = requireNamed(request.body.actor, 'actor', 'ACTOR_MISSING', 'the human who acknowledges');
    const { entity, atDaysRemaining, seq } = await ladders.ack(request.grain, request.params.assetId, actor, expectedVersionOf(request));
    tagVersion(reply, entity.version);
    return ok({ acked: true as const, atDaysRemaining, actor, seq });
  });

  app.post('/deadlines/:assetId/monitor', { schema: { params: DeadlineParams, headers: IfMatchHeaders, body: MonitorBody, ...R.monitor } }, async (request, reply) => {
    const { entity, seq } = await ladders.monitor(request.grain, request.params.assetId, request.body.signerId, expectedVersionOf(request));
    tagVersion(reply, entity.version);
    const view = ladderView(entity);
    return ok({ monitoring: view.monitoring, vacant: view.vacant, alarm: view.alarm, seq });
  });

  app.post('/deadlines/:assetId/satisfy', { schema: { params: DeadlineParams, headers: IfMatchHeaders, body: SatisfyBody, ...R.satisfy } }, async (request, reply) => {
    const evidenceRef = requireNamed(request.body.evidenceRef, 'evidenceRef', 'EVIDENCE_MISSING', 'the evidence: closure is by evidence, never by assertion');
    const { entity, seq } = await ladders.satisfy(request.grain, request.params.assetId, evidenceRef, expectedVersionOf(request));
    tagVersion(reply, entity.version);
    return ok({ ...ladderView(entity), seq });
  });

  app.post('/deadlines/:assetId/resolve', { schema: { params: DeadlineParams, headers: IfMatchHeaders, body: ResolveBody, ...R.resolve } }, async (request, reply) => {
    const { entity, seq } = await ladders.resolve(request.grain, request.params.assetId, request.body.outcome, expectedVersionOf(request));
    tagVersion(reply, entity.version);
    const view = ladderView(entity);
    return ok({ resolved: view.resolution, ladder: view, seq });
  });
}
