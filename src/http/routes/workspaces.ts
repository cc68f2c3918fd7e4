/** Sandbox workspaces: open one, read it, list its magic fixtures. */
import type { FastifyInstance } from 'fastify';
import { FIXTURE_LISTING } from '../../domain/fixtures.ts';
import { workspaceGraduation, workspaceProvenance, type GrainRecord } from '../../engine/workspaces.ts';
import { ok } from '../envelopes.ts';
import { WorkspaceParams } from '../schemas/common.ts';
import type { Services } from '../services.ts';

export async function workspaceRoutes(app: FastifyInstance, { services }: { services: Services }) {
  const { workspaces, journal } = services;

  const view = (ws: GrainRecord) => ({
    id: ws.id,
    tier: 'anonymous',
    environment: 'sandbox',
    openedAt: ws.openedAt,
    expiresAt: ws.expiresAt,
    ttlSeconds: ws.ttlSeconds,
    graduation: workspaceGraduation,
  });

  app.post('/workspaces', async (_request, reply) => {
    const ws = await workspaces.open();
    return reply.status(201).send(ok({ workspace: view(ws), provenance: workspaceProvenance(ws.id) }));
  });

  app.get('/workspaces/:workspaceId', { schema: { params: WorkspaceParams } }, async (request) => {
    const ws = await workspaces.resolve((request.params as { workspaceId: string }).workspaceId);
    const [matters, assets, events] = await Promise.all([journal.countStreams(ws.id, 'matter.opened'), journal.countStreams(ws.id, 'asset.minted'), journal.latestSeq(ws.id)]);
    return ok({ workspace: { ...view(ws), counts: { matters, assets, events } }, provenance: workspaceProvenance(ws.id) });
  });

  app.get('/workspaces/:workspaceId/fixtures', { schema: { params: WorkspaceParams } }, async (request) => {
    const ws = await workspaces.resolve((request.params as { workspaceId: string }).workspaceId);
    return ok({ fixtures: FIXTURE_LISTING, provenance: workspaceProvenance(ws.id) });
  });
}
