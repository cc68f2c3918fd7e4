/**
 * The key a request presents (`Authorization: Bearer <key>`), looked up once
 * per request. Two hooks need it: the rate limit (which counts a caller by
 * its key's owner, `rate-limit.ts`) and auth (which honours it, `auth.ts`).
 * Each used to look it up itself (its sha256, then the key cache, or its
 * streams on a miss): two lookups a request, and on a miss the second found
 * the record the first had just read and, on a shared journal, read its
 * lifecycle's version again. Now the first hook to ask does the lookup and
 * the other is handed the same answer; what each decides from it is its own
 * (`Keys.honours` from memory for the count, `Keys.honour` for auth, which on
 * a shared journal still reads the lifecycle's version of a key it did not
 * just load, so a revocation another process committed is never missed).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { FoundKey, Keys } from '../engine/keys.ts';

const BEARER = /^Bearer ([^\s]+)$/i;

/** What a request presents: no key, a header that is not `Bearer <key>`, or a key and what the lookup found for it (null: never issued). */
export type Presented = { kind: 'none' } | { kind: 'malformed' } | { kind: 'key'; found: FoundKey | null };

const NONE: Presented = { kind: 'none' };
const MALFORMED: Presented = { kind: 'malformed' };

declare module 'fastify' {
  interface FastifyRequest {
    /** The one lookup of the presented key, once a hook has asked for it (`presentedKeyOf`). */
    presentedKey: Promise<Presented> | null;
  }
}

/** The key the request presented, exactly as sent: what a roll derives its successor from. */
export function presentedSecret(request: FastifyRequest): string | undefined {
  return BEARER.exec(request.headers.authorization?.trim() ?? '')?.[1];
}

/** Declares the per-request slot (null until a hook asks), so every request has the same shape. */
export function decoratePresentedKey(app: FastifyInstance): void {
  app.decorateRequest('presentedKey', null);
}

/** The presented key, looked up on the first call of a request and shared by every later one. */
export function presentedKeyOf(request: FastifyRequest, keys: Keys): Promise<Presented> {
  return (request.presentedKey ??= lookUp(request, keys));
}

async function lookUp(request: FastifyRequest, keys: Keys): Promise<Presented> {
  if (request.headers.authorization === undefined) return NONE;
  const secret = presentedSecret(request);
  return secret === undefined ? MALFORMED : { kind: 'key', found: await keys.find(secret) };
}
