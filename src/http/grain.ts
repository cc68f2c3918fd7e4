/**
 * Grain resolution. The same resource routes mount at the top level (grain
 * `root`) and under `/workspaces/{workspaceId}`, `/tenants/{tenantId}` or
 * `/firms/{firmId}` (that sandbox grain's own id): nothing of one grain is
 * visible or writable from another.
 */
import type { FastifyRequest } from 'fastify';
import type { Services } from './services.ts';

export const ROOT_GRAIN = 'root';

declare module 'fastify' {
  interface FastifyRequest {
    grain: string;
  }
}

/** A preHandler that pins `request.grain`, refusing unknown or expired sandbox grains (404 typed EMPTY naming the fix). */
export function resolveGrain(services: Services) {
  return async (request: FastifyRequest) => {
    const { workspaceId, tenantId, firmId } = request.params as { workspaceId?: string; tenantId?: string; firmId?: string };
    if (workspaceId !== undefined) request.grain = (await services.workspaces.resolve(workspaceId)).record.id;
    else if (tenantId !== undefined) request.grain = (await services.tenants.resolve(tenantId)).record.id;
    else if (firmId !== undefined) request.grain = (await services.firms.resolve(firmId)).record.id;
    else request.grain = ROOT_GRAIN;
  };
}
