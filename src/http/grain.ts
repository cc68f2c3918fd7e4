/**
 * Grain resolution. The same resource routes mount at the top level (grain
 * `root`) and under `/workspaces/{workspaceId}` (the workspace's own grain):
 * nothing of one grain is visible or writable from another.
 */
import type { FastifyRequest } from 'fastify';
import type { Services } from './services.ts';

export const ROOT_GRAIN = 'root';

declare module 'fastify' {
  interface FastifyRequest {
    grain: string;
  }
}

/** A preHandler that pins `request.grain`, refusing unknown or expired workspaces. */
export function resolveGrain(services: Services) {
  return async (request: FastifyRequest) => {
    const { workspaceId } = request.params as { workspaceId?: string };
    request.grain = workspaceId === undefined ? ROOT_GRAIN : (await services.workspaces.resolve(workspaceId)).record.id;
  };
}
