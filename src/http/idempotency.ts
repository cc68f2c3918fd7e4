/**
 * `Idempotency-Key` on every POST and PUT (decisions.md, "Retries and
 * races"; the records themselves are `engine/idempotency.ts`).
 *
 * - The key is kept per caller: the API key at the top level, the grain
 *   inside a sandbox grain, the supply network on its signed callback. A
 *   top-level request with neither an API key nor a signature has no caller
 *   to keep it for (its answer would be anyone's to replay): 400.
 * - The request is the method, the path and the body as sent (before
 *   defaults or a Tenant's Offer fill it in), compared by a canonical digest.
 * - Refusals that come before the request is understood (a malformed body or
 *   key, a missing API key) are not kept: the same request gets the same
 *   refusal anyway. From the route's own checks on, the answer is kept.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { IDEMPOTENCY_KEY_PATTERN, idempotencyKeyProblem } from '../domain/idempotency-key.ts';
import { refusal } from '../domain/refusals.ts';
import { fingerprintOf, type Claim, type IdempotencyRecords, type KeptAnswer } from '../engine/idempotency.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The claim a request under an Idempotency-Key runs under. */
    idempotency?: Claim;
  }
}

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'idempotent-replayed';

/** The header as the contract declares it on every write. */
export const IdempotencyKey = {
  type: 'string',
  pattern: IDEMPOTENCY_KEY_PATTERN,
  description:
    'makes a retry safe: a fresh random key (a UUID) per request, the same key on its retries. Kept 24 hours per caller (the API key; inside a sandbox grain, the grain): a retry with the same method, path and body answers the first status and body again with Idempotent-Replayed: true and runs nothing; the same key on another request is 422 IDEMPOTENCY_KEY_REUSED; while the first still runs, 409 IDEMPOTENCY_KEY_IN_USE. At the top level it needs an API key (400 IDEMPOTENCY_KEY_UNSCOPED without one)',
  examples: ['3f0c9a52-7d4e-4b8e-9a51-0d6c2f1e8b47'],
};
/** The methods a key is honoured on: the writes. */
export const takesIdempotencyKey = (method: string): boolean => method === 'POST' || method === 'PUT';
/** The headers an answer is replayed with, beside its status and body. */
const KEPT_HEADERS = ['content-type', 'etag', 'location'];
/** The params that name a sandbox grain: the scope of a key inside it. */
const GRAIN_PARAMS = ['workspaceId', 'tenantId', 'firmId'];

/** The Idempotency-Key a routed write carries (validated), or undefined. */
function keyOf(request: FastifyRequest): string | undefined {
  const given = request.headers[IDEMPOTENCY_HEADER];
  if (given === undefined || !takesIdempotencyKey(request.method) || request.is404) return undefined;
  // Node joins a repeated header into one value ("a, b"): only the distinct view tells two keys from one with a comma (an injected request has none).
  if (Array.isArray(given) || (request.raw.headersDistinct?.[IDEMPOTENCY_HEADER]?.length ?? 0) > 1) throw refusal('IDEMPOTENCY_KEY_INVALID', { why: 'was sent more than once' });
  const problem = idempotencyKeyProblem(given);
  if (problem !== null) throw refusal('IDEMPOTENCY_KEY_INVALID', { why: problem });
  return given;
}

/** The sandbox grain a request names (its path's), if any. */
function sandboxOf(request: FastifyRequest): string | undefined {
  const params = (request.params ?? {}) as Record<string, string | undefined>;
  return GRAIN_PARAMS.map((name) => params[name]).find((id) => id !== undefined);
}

/** Whose records a key is kept among, or null when the caller is nobody in particular. */
function scopeOf(request: FastifyRequest): string | null {
  const grain = sandboxOf(request);
  if (grain !== undefined) return `grain:${grain}`;
  // Kept per owner: a retry sent with the key a roll issued is the same caller's.
  if (request.access.key) return `key:${request.access.key.owner.id}`;
  if (request.delivery) return 'supply-network';
  return null;
}

function replay(reply: FastifyReply, answer: KeptAnswer): void {
  reply.code(answer.status).headers({ ...answer.headers, [REPLAYED_HEADER]: 'true' }).send(answer.payload);
}

function answerOf(reply: FastifyReply, payload: unknown): KeptAnswer {
  const headers: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = reply.getHeader(name);
    if (value !== undefined) headers[name] = String(value);
  }
  return { status: reply.statusCode, headers, payload: String(payload) };
}

export function installIdempotency(app: FastifyInstance, records: IdempotencyRecords): void {
  // The key is checked, the body digested as sent, and the request claimed or replayed, all in the
  // first preValidation hook: ahead of a route's own (a Tenant's mint fills the body from its Offers,
  // which may have changed since: a retry must get the first answer, not be judged again), and of
  // every preHandler (a paid act's reservation among them): a replay runs nothing.
  app.addHook('preValidation', (request, reply, done) => {
    let key: string | undefined;
    try {
      key = keyOf(request);
    } catch (error) {
      return done(error as Error);
    }
    if (key === undefined) return done();
    const fingerprint = fingerprintOf(request.method, request.url, request.body);
    const scope = scopeOf(request);
    if (scope === null) return done(refusal('IDEMPOTENCY_KEY_UNSCOPED', { method: request.method, url: request.routeOptions.url ?? request.url }));
    records.begin(scope, key, fingerprint, sandboxOf(request)).then(
      (begun) => {
        if ('replay' in begun) return replay(reply, begun.replay);
        request.idempotency = begun.claim;
        // The rest of the request (its command's writes) runs in the claim's context.
        records.run(begun.claim, done);
      },
      (error: Error) => done(error),
    );
  });

  // Callback hooks: a request without a key (nearly all of them) passes through without a promise.
  app.addHook('onSend', (request, reply, payload, done) => {
    const claim = request.idempotency;
    if (!claim) return done(null, payload);
    // A sandbox grain that did not resolve (unknown, expired, purged: its 404 before any handler) keeps nothing: the same
    // request gets the same 404 anyway, and a record kept for it would outlive the grain's purge (journal/retention.ts).
    if (sandboxOf(request) !== undefined && !request.sandbox && reply.statusCode === 404) {
      records.abandon(claim);
      return done(null, payload);
    }
    records.settle(claim, answerOf(reply, payload)).then(() => done(null, payload), done);
  });

  // A request that ended without an answer (its connection dropped first) keeps nothing, and frees its key.
  app.addHook('onResponse', (request, _reply, done) => {
    if (request.idempotency) records.abandon(request.idempotency);
    done();
  });
}
