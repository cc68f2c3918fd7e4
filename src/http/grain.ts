/**
 * Grain resolution, once per request, before any handler runs: the same
 * resource routes mount at the top level and under `/workspaces/{workspaceId}`,
 * `/tenants/{tenantId}` or `/firms/{firmId}`, and every list, tail and write
 * reads only the grain resolved here (the rules are in `engine/grains.ts`):
 *
 * - inside a sandbox grain: that grain (unknown or expired: 404 EMPTY);
 * - at the top level: the records of the caller's key, which are its
 *   owner's (every key rolled from one shares them; without a key: none, so
 *   lists and tails are EMPTY and name the fix);
 * - a top-level door whose route says `config.reachesAnyKey` (a read by id,
 *   the supply network's signed callback): every key's records.
 */
import type { FastifyRequest } from 'fastify';
import { NO_GRAIN, ownGrainOf, TOP_LEVEL } from '../engine/grains.ts';
import type { Grain } from '../engine/workspaces.ts';
import { optionalParam } from './params.ts';
import type { Services } from './services.ts';

declare module 'fastify' {
  interface FastifyRequest {
    grain: string;
    /** The live sandbox grain `resolveGrain` found (absent at the top level), so a handler need not resolve it again. */
    sandbox?: Grain;
  }
  interface FastifyContextConfig {
    /** Why this top-level door reaches every key's records rather than the caller's own (the id, or a signature, is the capability). */
    reachesAnyKey?: string;
  }
}

/** The `reachesAnyKey` reason of the top-level reads by id. */
export const ID_IS_CAPABILITY = 'a read by id: the id (at least 96 random bits) is the capability';

/** What a top-level list or tail says to a caller without a key. */
export const KEYLESS_LISTING =
  'the top level lists only the records of the calling API key, and this request sent none: send Authorization: Bearer <key> (POST /keys issues one) to list yours. Reads by id stay keyless, and sandbox grains (POST /workspaces) list without a key';

/** A list's EMPTY message: the fix for a keyless top-level caller, else the list's own. */
export const emptyMessage = (request: FastifyRequest, otherwise: string): string => (request.grain === NO_GRAIN ? KEYLESS_LISTING : otherwise);

/**
 * A hook that pins `request.grain` (and the live grain itself in
 * `request.sandbox`), refusing unknown or expired sandbox grains (404 typed
 * EMPTY naming the fix).
 */
export function resolveGrain(services: Services) {
  return async (request: FastifyRequest) => {
    // A hook serves every route: each grain prefix names at most one of these.
    const workspaceId = optionalParam(request, 'workspaceId');
    const tenantId = optionalParam(request, 'tenantId');
    const firmId = optionalParam(request, 'firmId');
    const sandbox =
      workspaceId !== undefined ? await services.workspaces.resolve(workspaceId)
      : tenantId !== undefined ? await services.tenants.resolve(tenantId)
      : firmId !== undefined ? await services.firms.resolve(firmId)
      : undefined;
    request.sandbox = sandbox;
    request.grain = sandbox ? sandbox.record.id : topLevelGrainOf(request);
  };
}

function topLevelGrainOf(request: FastifyRequest): string {
  if (request.routeOptions.config.reachesAnyKey !== undefined) return TOP_LEVEL;
  const key = request.access.key;
  // A key rolled from another reaches the records of the first: its owner's.
  return key ? ownGrainOf(key.owner.id) : NO_GRAIN;
}
