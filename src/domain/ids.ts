/**
 * Opaque ids, prefixed by kind. A keyless grain's id is its only capability, so
 * each carries 128 random bits (the decisions ask for at least 96).
 */
import { randomBytes } from 'node:crypto';

export type IdPrefix = 'mt' | 'as' | 'gig' | 'ws' | 'tn' | 'fm' | 'doc' | 'cl' | 'key' | 'rq' | 'rc' | 'en';

export function newId(prefix: IdPrefix): string {
  const n = BigInt(`0x${randomBytes(16).toString('hex')}`);
  return `${prefix}_${n.toString(36).padStart(25, '0')}`;
}

/** Shape check used before touching storage with a caller-supplied id. */
export const ID_PATTERN = '^[a-z]{2,3}_[0-9a-z]{1,40}$';

/**
 * Request ids: unique, not secret. A random per-process prefix and a counter
 * cost nothing per request, where 128 fresh random bits each time showed up in
 * profiles.
 */
export function requestIds(): () => string {
  const prefix = randomBytes(6).toString('hex');
  let n = 0;
  return () => `rq_${prefix}${(n++).toString(36)}`;
}
