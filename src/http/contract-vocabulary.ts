/**
 * What the full contract (`openapi.ts`) and its compact form
 * (`compact-contract.ts`) both name: the extension that carries an
 * operation's refusal codes, and the headers every 429 carries.
 */

/** The operation's map of status → the refusal codes it can carry there. */
export const REFUSAL_CODES = 'x-refusal-codes';

/** The headers of a 429, by name, as references to `components.headers`. */
export const LIMITED_HEADERS = {
  'Retry-After': { $ref: '#/components/headers/RetryAfter' },
  RateLimit: { $ref: '#/components/headers/RateLimit' },
  'RateLimit-Policy': { $ref: '#/components/headers/RateLimitPolicy' },
};
