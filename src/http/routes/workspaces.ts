/** Sandbox workspaces: open one (per-caller bound), read it with its counts, list its magic fixtures. */
import type { FastifyInstance } from 'fastify';
import { FIXTURE_LISTING } from '../../domain/fixtures.ts';
import { grainView } from '../../engine/workspaces.ts';
import { ok } from '../envelopes.ts';
import { resolveGrain } from '../grain.ts';
import { admitCreation, SANDBOX_PROVISIONING } from '../sandbox.ts';
import { WorkspaceParams } from '../../schemas/common.ts';
import { WorkspaceDoors as R } from '../schemas/responses.ts';
import type { Services } from '../services.ts';

export async function workspaceRoutes(app: FastifyInstance, { services }: { services: Services }) {
  const { workspaces, journal } = services;

  app.post('/workspaces', { config: { keyless: SANDBOX_PROVISIONING }, schema: R.open }, async (request, reply) => {
    await admitCreation(services, 'workspace', request, reply);
    const { record } = await workspaces.open();
    request.grain = record.id;
    return reply.status(201).send(ok({ workspace: grainView(workspaces, record) }));
  });

  const resolve = resolveGrain(services);

  app.get('/workspaces/:workspaceId', { schema: { params: WorkspaceParams, ...R.get }, preHandler: resolve }, async (request) => {
    const { record } = request.sandbox!;
    const [matters, assets, events] = await Promise.all([journal.countStreams(record.id, 'matter.opened'), journal.countStreams(record.id, 'asset.minted'), journal.latestSeq(record.id)]);
    return ok({ workspace: { ...grainView(workspaces, record), counts: { matters, assets, events } } });
  });

  app.get('/workspaces/:workspaceId/fixtures', { schema: { params: WorkspaceParams, ...R.fixtures }, preHandler: resolve }, async () => ok({ fixtures: FIXTURE_LISTING }));
}
