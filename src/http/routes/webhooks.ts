/**
 * The webhook doors (decisions.md, "Webhooks"; the engine is
 * `engine/webhooks.ts`). Mounted on the top level, where an endpoint is the
 * calling key's and is sent only its records' events, and under each grain
 * prefix that holds Matters, where it is the grain's (keyless).
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Endpoint } from '../../engine/webhooks.ts';
import { listed, ok } from '../envelopes.ts';
import { emptyMessage, resolveGrain } from '../grain.ts';
import { WebhookDoors as R } from '../schemas/responses.ts';
import { DeliveriesQuery, DeliveryParams, WebhookBody, WebhookParams } from '../../schemas/webhooks.ts';
import type { Services } from '../services.ts';

/** An endpoint as it is shown: never its secret. */
const endpointView = (e: Endpoint) => ({
  id: e.id,
  url: e.url,
  events: e.events,
  ...(e.description !== undefined ? { description: e.description } : {}),
  status: e.disabled ? ('disabled' as const) : ('enabled' as const),
  disabled: e.disabled,
  createdAt: e.createdAt,
});

export async function webhookRoutes(fastify: FastifyInstance, { services }: { services: Services }) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { webhooks } = services;
  app.addHook('preHandler', resolveGrain(services));

  app.post('/webhooks', { schema: { body: WebhookBody, ...R.create } }, async (request, reply) => {
    const endpoint = await webhooks.create(request.grain, request.body);
    return reply.status(201).send(ok({ webhook: endpointView(endpoint), secret: endpoint.secret }));
  });

  app.get('/webhooks', { schema: R.list }, async (request) => listed(webhooks.list(request.grain).map(endpointView), emptyMessage(request, 'no webhook endpoint yet: POST /webhooks registers one')));

  app.get('/webhooks/:id', { schema: { params: WebhookParams, ...R.get } }, async (request) => ok({ webhook: endpointView(await webhooks.get(request.grain, request.params.id)) }));

  app.post('/webhooks/:id/disable', { schema: { params: WebhookParams, ...R.disable } }, async (request) =>
    ok({ webhook: endpointView(await webhooks.disable(request.grain, request.params.id)) }),
  );

  app.get('/webhooks/:id/deliveries', { schema: { params: WebhookParams, querystring: DeliveriesQuery, ...R.deliveries } }, async (request) => {
    const page = await webhooks.attempts(request.grain, request.params.id, { before: request.query.before, limit: request.query.limit! });
    return listed(page.attempts, 'nothing delivered yet: an endpoint is sent the events of what happens after it is registered', { nextBefore: page.nextBefore });
  });

  app.post('/webhooks/:id/deliveries/:deliveryId/redeliver', { schema: { params: DeliveryParams, ...R.redeliver } }, async (request, reply) =>
    reply.status(202).send(ok({ redelivery: await webhooks.redeliver(request.grain, request.params.id, request.params.deliveryId) })),
  );
}
