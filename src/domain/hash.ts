/** The one content hash of the service: sha256, as 64 lowercase hex characters. */
import { createHash } from 'node:crypto';

export const sha256Hex = (data: string | Uint8Array): string => createHash('sha256').update(data).digest('hex');

export const SHA256_HEX_PATTERN = '^[0-9a-f]{64}$';
export const SHA256_HEX = new RegExp(SHA256_HEX_PATTERN);

/** JSON with every object's keys sorted: equal for equal values, whatever their key order or whitespace. */
export const canonicalJson = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) : v));
