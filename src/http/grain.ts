/**
 * Grain resolution. The same resource routes mount at the top level (grain
 * `root`) and under `/workspaces/{workspaceId}`, `/tenants/{tenantId}` or
 * `/firms/{firmId}` (that sandbox grain's own id): nothing of one grain is
 * visible or writable from another.
 */
import type { FastifyRequest } from 'fastify';
import type { Grain } from '../engine/workspaces.ts';
import type { Services } from './services.ts';

export const ROOT_GRAIN = 'root';

declare module 'fastify' {
  interface FastifyRequest {
    grain: string;
    /** The live sandbox grain `resolveGrain` found (absent at the top level), so a handler need not resolve it again. */
    sandbox?: Grain;
  }
}

/**
 * A preHandler that pins `request.grain` (and the live grain itself in
 * `request.sandbox`), refusing unknown or expired sandbox grains (404 typed
 * EMPTY naming the fix).
 */
export function resolveGrain(services: Services) {
  return async (request: FastifyRequest) => {
    const { workspaceId, tenantId, firmId } = request.params as { workspaceId?: string; tenantId?: string; firmId?: string };
    const sandbox =
      workspaceId !== undefined ? await services.workspaces.resolve(workspaceId)
      : tenantId !== undefined ? await services.tenants.resolve(tenantId)
      : firmId !== undefined ? await services.firms.resolve(firmId)
      : undefined;
    request.sandbox = sandbox;
    request.grain = sandbox ? sandbox.record.id : ROOT_GRAIN;
  };
}
