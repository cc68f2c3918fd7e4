/**
 * HTTP pieces every sandbox grain shares: the per-caller creation bound on the
 * provisioning doors, and the provenance stamp on every envelope a grain answers.
 */
import { normalizeIP } from '@fastify/rate-limit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sandboxKindOf } from '../engine/grains.ts';
import type { GrainKind } from '../domain/grain-kinds.ts';
import { grainProvenance } from '../engine/workspaces.ts';
import type { Services } from './services.ts';

/** The `config.keyless` reason of the provisioning doors (POST /workspaces, /tenants, /firms): the creation bound stands in for a key. */
export const SANDBOX_PROVISIONING = 'sandbox provisioning is anonymous';

/**
 * Takes a creation slot for the caller, or refuses 429 BLOCKED with
 * Retry-After (rejects with the refusal: await it before opening the grain).
 * The caller is its address as the rate limit counts it: an IPv6 client by
 * its /64, since one network hands a client ever more addresses.
 */
export async function admitCreation(services: Services, kind: GrainKind, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const bounded = await services.creationBound.admit(kind, normalizeIP(request.ip));
  if (!bounded) return;
  reply.header('retry-after', String(bounded.retryAfterSeconds));
  throw bounded.refusal;
}

/**
 * A `preSerialization` hook: every JSON object answered inside a sandbox grain
 * (success or refusal) carries `provenance{environment: sandbox, legalwork: true,
 * <kind>: id}`, so synthetic state can never pass for real state.
 */
export async function stampProvenance(request: FastifyRequest, _reply: FastifyReply, payload: unknown): Promise<unknown> {
  return request.grain ? stamped(request.grain, payload) : payload;
}

/** `payload` as answered to a request of `grain`: stamped when that grain is a sandbox (an answer kept as a row is stamped as it will be sent). */
export function stamped(grain: string, payload: unknown): unknown {
  const kind = sandboxKindOf(grain);
  if (!kind || payload === null || typeof payload !== 'object' || Array.isArray(payload) || 'provenance' in payload) return payload;
  return { ...payload, provenance: grainProvenance(kind, grain) };
}
