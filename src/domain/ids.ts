/**
 * Opaque ids, prefixed by kind. A keyless grain's id is its only capability, so
 * each carries 128 random bits (the decisions ask for at least 96).
 */
import { randomBytes, randomFillSync } from 'node:crypto';

export type IdPrefix = 'mt' | 'as' | 'gig' | 'ws' | 'tn' | 'fm' | 'doc' | 'cl' | 'key' | 'rc' | 'en' | 'wh';

/**
 * Random bits are drawn from the CSPRNG a pool at a time: one call per 256 ids
 * instead of one per id (each call showed up in profiles of Matter creation).
 * Every byte is used once.
 */
const pool = Buffer.alloc(16 * 256);
let used = pool.length;

export function newId(prefix: IdPrefix): string {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  const n = pool.readBigUInt64BE(used) * 2n ** 64n + pool.readBigUInt64BE(used + 8);
  used += 16;
  return `${prefix}_${n.toString(36).padStart(25, '0')}`;
}

/**
 * The id rule the service holds every id it is given to (its own, and the
 * ones callers choose): 1-64 letters, digits, `_ . : -`. `.source` is the
 * same rule as a JSON Schema pattern.
 */
export const ID_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;

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
